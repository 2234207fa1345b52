#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Real MPI from Debian (OpenMPI 4.1 over OpenPMIx): a hello-world and an
# allreduce on 2 and 4 simulated nodes, started by srun --mpi=pmix (the
# agents serve PMIx; srun carries the fences), by MpiDefault=pmix without
# --mpi, and by OpenMPI's mpirun inside sbatch (which starts its daemons
# with srun --kill-on-bad-exit --nodelist ...); srun -K ends a step whose
# rank fails; MPICH (Debian's, simple PMI) by srun --mpi=pmi2 on 2 and 4
# nodes; Slurm's own PMI-2 client library by srun --mpi=pmi2 (the PMI-2
# wire protocol); srun --multi-prog starts two programs as one world;
# another --mpi type is refused by name. The nodes are agents on this
# one host, so OpenMPI's shared-memory transport is kept to TCP between
# "nodes" (their segment names would clash). Needs mpicc; skipped without.
. "$(dirname "$0")/lib.sh"
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
	echo "cases: 0 passed, 0 failed (needs mpicc and mpirun: openmpi-bin, libopenmpi-dev)"
	finish
	exit 0
fi
cd "$T"
write_conf 4 gpu:mi300x:8
# The simulated nodes share this host's /tmp, where each of mpirun's
# daemons makes its session folder, named after the host: two daemons of
# one job on one host race at mkdir ("File exists", orte_init fails). Real
# nodes each have their own /tmp; here a TaskProlog gives each node its
# own TMPDIR, as sites do for per-node scratch.
mkdir -p tmp
printf '%s\n' '#!/bin/sh' "mkdir -p $T/tmp/\$SLURMD_NODENAME" "echo export TMPDIR=$T/tmp/\$SLURMD_NODENAME" >tp.sh
chmod 755 tp.sh
echo "TaskProlog=$T/tp.sh" >>slurm.conf
start_ctld
start_agents 4
check "the nodes register" wait_until 20 nodes_idle 4
cat >ar.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, size, one, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	one = rank + 1;
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d sum %d\n", rank, size, sum);
	MPI_Finalize();
	return 0;
}
C
check "mpicc builds the test program" mpicc -o ar ar.c
# one host, several "nodes": TCP between ranks (and root may run mpirun)
export OMPI_MCA_btl=self,tcp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sums() { # FILE RANKS: every rank printed the sum 1+..+RANKS
	[ "$(grep -c "of $2 sum $(($2 * ($2 + 1) / 2))\$" "$1")" = "$2" ]
}
sbatch --wait -N2 -n4 -o p2.out --wrap "srun --mpi=pmix $T/ar" >/dev/null
check "srun --mpi=pmix: 4 ranks on 2 nodes reduce together" sums p2.out 4
sbatch --wait -N4 -n8 -o p4.out --wrap "srun --mpi=pmix $T/ar" >/dev/null
check "srun --mpi=pmix: 8 ranks on 4 nodes reduce together" sums p4.out 8
srun -N2 -n4 --mpi=pmix "$T/ar" >po.out 2>&1
check "srun --mpi=pmix from outside a job (its own allocation): 4 ranks" sums po.out 4
# MPMD: srun --multi-prog starts two programs as one MPI world (OpenMPI
# over PMIx): rank 0 the "leader", ranks 1-3 the "workers", all reduce
sed 's/printf("rank %d of %d sum %d\\n", rank, size, sum);/printf("rank %d of %d sum %d as %s\\n", rank, size, sum, argv[1]);/' ar.c >mp.c
mpicc -o mp mp.c
printf '0 %s leader\n1-3 %s worker%%o\n' "$T/mp" "$T/mp" >mp.conf
sbatch --wait -N2 -n4 -o mpmd.out --wrap "srun --mpi=pmix --multi-prog $T/mp.conf" >/dev/null
check "srun --multi-prog: two programs, one MPI world of 4 ranks" sh -c "
	grep -qx 'rank 0 of 4 sum 10 as leader' mpmd.out && grep -qx 'rank 1 of 4 sum 10 as worker0' mpmd.out &&
	grep -qx 'rank 3 of 4 sum 10 as worker2' mpmd.out"
sbatch --wait -N2 -n4 -o mr.out --wrap "mpirun $T/ar" >/dev/null
check "mpirun inside sbatch (its daemons started by srun) runs 4 ranks" sums mr.out 4
sums mr.out 4 || sed 's/^/  | /' mr.out # what mpirun said, when it failed
sbatch --wait -N2 -n2 -o k.out \
	--wrap "srun -K -n2 sh -c '[ \$SLURM_PROCID = 1 ] || exit 3; sleep 30; echo survived'; echo rc=\$?" >/dev/null
check "srun -K: a rank's failure ends the step with its code" sh -c "grep -qx rc=3 k.out && ! grep -q survived k.out"
if command -v mpicc.mpich >/dev/null; then
	mpicc.mpich -o arm ar.c
	sbatch --wait -N2 -n4 -o mpich.out --wrap "srun --mpi=pmi2 $T/arm" >/dev/null
	check "MPICH by srun --mpi=pmi2 (PMI over PMI_FD): 4 ranks on 2 nodes reduce together" sums mpich.out 4
	sbatch --wait -N4 -n8 -o mpich4.out --wrap "srun --mpi=pmi2 $T/arm" >/dev/null
	check "... and 8 ranks on 4 nodes" sums mpich4.out 8
else
	not_ok "mpicc.mpich present (make deps installs mpich)"
fi
# the PMI-2 wire protocol, spoken by Slurm's own client library (Debian's
# libpmi2-0-dev, from Slurm 22.05): init, job id, the process mapping, a
# put and a fence on every rank, then each rank gets its neighbour's value
# (a ';' in it, escaped on the wire as ";;")
if [ -e /usr/include/slurm/pmi2.h ]; then
	cat >p2.c <<'C'
#include <slurm/pmi2.h>
#include <stdio.h>
int main(void)
{
	int spawned, size, rank, appnum, len, flag;
	char jobid[64], key[32], val[64], got[64] = "", map[256] = "";

	if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS ||
	    PMI2_Job_GetId(jobid, sizeof(jobid)) != PMI2_SUCCESS)
		return 2;
	snprintf(key, sizeof(key), "k%d", rank);
	snprintf(val, sizeof(val), "v;%d", rank);
	if (PMI2_KVS_Put(key, val) != PMI2_SUCCESS || PMI2_KVS_Fence() != PMI2_SUCCESS)
		return 3;
	snprintf(key, sizeof(key), "k%d", (rank + 1) % size);
	if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, got, sizeof(got), &len) != PMI2_SUCCESS)
		return 4;
	PMI2_Info_GetJobAttr("PMI_process_mapping", map, sizeof(map), &flag);
	printf("rank %d of %d got %s map %s\n", rank, size, got, map);
	return PMI2_Finalize() == PMI2_SUCCESS ? 0 : 5;
}
C
	check "a PMI-2 client builds against Slurm's libpmi2" cc -o p2 p2.c -lpmi2
	sbatch --wait -N2 -n4 -o p2.out --wrap "srun --mpi=pmi2 $T/p2; echo rc=\$?" >/dev/null
	check "srun --mpi=pmi2 serves the PMI-2 wire protocol: 4 ranks on 2 nodes exchange keys" \
		sh -c "[ \$(grep -c '^rank [0-3] of 4 got v;[0-3] map (vector,(0,2,2))\$' p2.out) -eq 4 ] && grep -qx rc=0 p2.out"
	check "... each its neighbour's" sh -c "grep -qx 'rank 3 of 4 got v;0 map (vector,(0,2,2))' p2.out"
else
	not_ok "libpmi2-0-dev present (make deps installs it)"
fi
sbatch --wait -o pmi1.out --wrap "srun --mpi=openmpi true; echo rc=\$?" >/dev/null
check "another --mpi type is refused by name" sh -c "grep -q 'mpi other than none, pmi2 and pmix is not supported' pmi1.out && grep -qx rc=1 pmi1.out"
stop_all
echo "MpiDefault=pmix" >>slurm.conf
start_ctld
start_agents 2
check "the nodes register again" wait_until 20 nodes_idle 2
sbatch --wait -N2 -n2 -o d.out --wrap "srun $T/ar" >/dev/null
check "MpiDefault=pmix: plain srun starts MPI ranks" sums d.out 2
finish
