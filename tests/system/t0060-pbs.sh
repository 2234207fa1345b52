#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A batch script's #PBS (Torque, PBS Pro) and #BSUB (LSF) lines, read as
# Slurm 22.05's sbatch reads them: translated into its options (sbatch -v
# shows the same 'defined options' as Slurm's, tests/compat/golden/
# slurm-pbs.txt), over #SBATCH lines and under the command line; ignored
# with --ignore-pbs or SBATCH_IGNORE_PBS; a PBS option Slurm reads and
# then drops is refused by name. Also --exclusive=user (the job's nodes run
# its user's jobs alone), =mcs refused, a bad value refused as Slurm.
. "$(dirname "$0")/lib.sh"
GOLD="$(dirname "$(readlink -f "$0")")/../compat/golden/slurm-pbs.txt"
cd "$T"
chmod 755 "$T"
write_conf 2 gpu:mi300x:8
start_ctld
start_agents 2
check "2 nodes register" wait_until 20 nodes_idle 2

cat >pbs.sh <<'SH'
#!/bin/bash
#PBS -N pbsjob
#PBS -l nodes=2:ppn=2,walltime=00:10:00,mem=100mb
#PBS -e err.txt -o out.txt
#PBS -m abe -M someone@example.com
#PBS -q gpu -h -r n
#PBS -l naccelerators=1
echo hi
SH
cat >bsub.sh <<'SH'
#!/bin/bash
#BSUB -o out%J -e err.txt
#BSUB -J bjob -M 102400
#BSUB -W 5 -x -q gpu
#BSUB -n 2,4
echo hi
SH
cat >pro.sh <<'SH'
#!/bin/bash
#PBS -l select=2:ncpus=4:mpiprocs=2
#PBS -l walltime=1:00:00
echo hi
SH
for f in pbs.sh bsub.sh pro.sh; do
	sed -n "/^== $f\$/,/end of defined options/p" "$GOLD" | sed 1d >"$f.gold"
	sbatch -v --test-only "$f" 2>&1 | sed -n '/defined options/,/end of defined/p' | sed "s#$T#CWD#" >"$f.ours"
	check "sbatch -v: $f's options as Slurm reads them" diff "$f.gold" "$f.ours"
done

cat >run.sh <<'SH'
#!/bin/bash
#SBATCH -J from-sbatch
#PBS -N pbsrun
#PBS -l nodes=2:ppn=2,walltime=00:10:00
#PBS -j oe
#PBS -o out.txt
#PBS -e err.txt
echo to-stdout; echo to-stderr >&2
SH
j=$(sbatch --parsable --wait run.sh)
check "a #PBS job runs as its lines ask (name over #SBATCH's, nodes, tasks, time)" sh -c "
	scontrol show job $j | grep -q 'JobName=pbsrun$' && scontrol show job $j | grep -q 'NumNodes=2 NumCPUs=4 NumTasks=4' &&
	scontrol show job $j | grep -q 'TimeLimit=00:10:00'"
check "#PBS -j oe: stderr joins the -o file, no -e file" sh -c "
	grep -qx to-stdout out.txt && grep -qx to-stderr out.txt && [ ! -e err.txt ]"
j=$(sbatch --parsable -J from-cli --hold run.sh)
check "the command line over #PBS lines" sh -c "scontrol show job $j | grep -q 'JobName=from-cli$'"
scancel "$j"
j=$(sbatch --parsable --hold --ignore-pbs run.sh)
k=$(SBATCH_IGNORE_PBS=1 sbatch --parsable --hold run.sh)
z=$(SBATCH_IGNORE_PBS=0 sbatch --parsable --hold run.sh)
check "--ignore-pbs and SBATCH_IGNORE_PBS=1: #PBS lines not read; =0: read (test17.31)" sh -c "
	scontrol show job $j | grep -q 'JobName=from-sbatch$' && scontrol show job $k | grep -q 'JobName=from-sbatch$' &&
	scontrol show job $z | grep -q 'JobName=pbsrun$'"
scancel "$j" "$k" "$z"
j=$(sbatch --parsable --hold bsub.sh)
check "a #BSUB job (test17.62's lines): name, time, memory per CPU in KB, exclusive, files" sh -c "
	scontrol show job $j | grep -q 'JobName=bjob$' && scontrol show job $j | grep -q 'TimeLimit=00:05:00' &&
	scontrol show job $j | grep -q 'MinMemoryCPU=100M' && scontrol show job $j | grep -q 'OverSubscribe=NO' &&
	scontrol show job $j | grep -q 'StdErr=$T/err.txt' && scontrol show job $j | grep -q 'StdOut=$T/out$j'"
scancel "$j"
printf '#!/bin/sh\n#PBS -k oe\ntrue\n' >keep.sh
printf '#!/bin/sh\n#PBS -l walltime=1:00,vmem=1gb\ntrue\n' >vmem.sh
printf '#!/bin/sh\n#PBS -W stagein=x\ntrue\n' >stage.sh
check "a PBS option Slurm drops is refused by name, exit 1" sh -c "
	sbatch keep.sh 2>&1 | grep -qx 'sbatch: error: #PBS -k (keep) is not supported by Spur' &&
	! sbatch keep.sh 2>/dev/null &&
	sbatch vmem.sh 2>&1 | grep -qx 'sbatch: error: #PBS -l vmem is not supported by Spur' &&
	sbatch stage.sh 2>&1 | grep -qx 'sbatch: error: #PBS -W stagein is not supported by Spur'"

# --exclusive=user: the job's node takes more of its user's jobs, no one else's
id spurtest >/dev/null 2>&1 || useradd -M -s /bin/sh spurtest
a=$(sbatch --parsable --exclusive=user -w mi1 -n1 --wrap 'sleep 60')
b=$(sbatch --parsable -w mi1 -n1 --wrap 'sleep 60')
c=$(runuser -u spurtest -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" sbatch --parsable -o /dev/null -w mi1 -n1 --wrap 'sleep 60')
check "--exclusive=user: its user's second job shares the node" wait_until 10 sh -c "
	[ \"\$(squeue -h -j $a,$b -o %t | sort -u)\" = R ]"
check "... another user's waits" sh -c "sleep 1; [ \"\$(squeue -h -j $c -o %t)\" = PD ]"
check "scontrol show job: OverSubscribe=USER" sh -c "scontrol show job $a | grep -q 'OverSubscribe=USER '"
scancel "$a" "$b" "$c"
check "--exclusive=mcs refused by name; a bad value as Slurm" sh -c "
	sbatch --exclusive=mcs --wrap true 2>&1 | grep -q 'exclusive=mcs is not supported' &&
	sbatch --exclusive=nope --wrap true 2>&1 | grep -qx 'sbatch: error: Invalid --exclusive specification'"
finish
