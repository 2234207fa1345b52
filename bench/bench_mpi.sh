#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# MPI start-up: an MPI program that only initialises and finalises, started
# over 2, 4 and 8 simulated nodes (2 ranks each) by srun --mpi=pmix (the
# agents serve PMIx, srun carries the fences) and, for MPICH, by srun
# --mpi=pmi2; against the same OpenMPI program started by mpirun on this
# host without a scheduler, in the same run. Medians of 5, wall time of
# the srun (or mpirun) command. Needs mpicc (OpenMPI) and, for the pmi2
# line, mpicc.mpich.
set -eu
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
T=$(mktemp -d)
trap 'stop_cluster; rm -rf "$T"' EXIT
. "$(dirname "$0")/cluster.sh"
PORT=$(free_port)
export SLURM_CONF="$T/slurm.conf" SPUR_CONF="$T/slurm.conf" PATH="$BUILD/src/cli:$PATH"
export OMPI_MCA_btl=self,tcp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
printf '%s\n' '#include <mpi.h>' 'int main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }' >"$T/init.c"
mpicc -o "$T/init" "$T/init.c"
command -v mpicc.mpich >/dev/null && mpicc.mpich -o "$T/init_mpich" "$T/init.c"
chmod 755 "$T"
median() { sort -n | sed -n 3p; }
start_cluster 8
for n in 2 4 8; do
	r=$((2 * n))
	sbatch --wait -N "$n" -n "$r" -o "$T/m$n.out" --wrap "
		for i in 1 2 3 4 5; do
			a=\$(date +%s%N); srun --mpi=pmix $T/init; b=\$(date +%s%N)
			echo pmix \$(( (b - a) / 1000000 ))
			if [ -x $T/init_mpich ]; then
				a=\$(date +%s%N); srun --mpi=pmi2 $T/init_mpich; b=\$(date +%s%N)
				echo pmi2 \$(( (b - a) / 1000000 ))
			fi
		done" >/dev/null
	base=$(for i in 1 2 3 4 5; do
		a=$(date +%s%N); mpirun -np "$r" --oversubscribe "$T/init" >/dev/null 2>&1; b=$(date +%s%N)
		echo $(((b - a) / 1000000))
	done | median)
	echo "mpi_start_ms_${n}_nodes_${r}_ranks: pmix $(awk '$1 == "pmix" {print $2}' "$T/m$n.out" | median)," \
		"pmi2 $(awk '$1 == "pmi2" {print $2}' "$T/m$n.out" | median)," \
		"mpirun without a scheduler $base (same host, median of 5)"
done
