#!/bin/bash
#SBATCH --job-name=train
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --gres=gpu:mi300x:8
#SBATCH --time=10:00
#SBATCH --output=train-%j.out
# The seed example: a 2-node job on 8 MI300X GPUs per node.
export MASTER_ADDR=$(scontrol show hostnames $SPUR_JOB_NODELIST | head -n1)
echo "job $SPUR_JOB_ID: $SPUR_JOB_NUM_NODES nodes ($SPUR_JOB_NODELIST), master $MASTER_ADDR"
# one task per rank over both nodes, as a torchrun/mpirun launcher would
srun -l bash -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME (local $SLURM_LOCALID), GPUs $SPUR_JOB_GPUS, master $MASTER_ADDR"' | sort
sleep 2
echo "training done"
