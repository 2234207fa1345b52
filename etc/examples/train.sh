#!/bin/bash
#SBATCH --job-name=train
#SBATCH --nodes=2
#SBATCH --gres=gpu:mi300x:8
#SBATCH --time=10:00
#SBATCH --output=train-%j.out
# The seed example: a 2-node job on 8 MI300X GPUs per node.
export MASTER_ADDR=$(scontrol show hostnames $SPUR_JOB_NODELIST | head -n1)
echo "job $SPUR_JOB_ID: $SPUR_JOB_NUM_NODES nodes ($SPUR_JOB_NODELIST), master $MASTER_ADDR"
echo "GPUs on this node: $SPUR_JOB_GPUS (ROCR_VISIBLE_DEVICES=$ROCR_VISIBLE_DEVICES)"
# srun (task fan-out over the nodes) arrives in a later release; the batch
# script runs on the first node, as in Slurm
sleep 3
echo "training done on $SLURMD_NODENAME"
