#!/bin/bash
# Build a VCR test set on a Slurm cluster: one array task per shard.
#
#   sbatch docs/slurm-array.sh            # 8 shards (--array=0-7)
#   # when every task has finished:
#   vcr merge /scratch/$USER/vcr-val
#
# Each task writes /scratch/$USER/vcr-val/shard-<i>-of-8/. vcr generate reads
# its shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (counted from
# SLURM_ARRAY_TASK_MIN), so the array range must be contiguous, without a
# step. A task that is pre-empted, times out or fails is simply resubmitted
# (--requeue, or `sbatch --array=<i> docs/slurm-array.sh`): --resume continues
# where it stopped, and the output equals that of an uninterrupted run.
#
#SBATCH --job-name=vcr-generate
#SBATCH --array=0-7
#SBATCH --cpus-per-task=16
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --output=vcr-generate-%A_%a.log

set -euo pipefail

IMAGES=${IMAGES:-/data/imagenet/val}            # flat folder or class folders
OUT=${OUT:-/scratch/$USER/vcr-val}
CORRUPTIONS=${CORRUPTIONS:-gaussian_noise,shot_noise,impulse_noise,defocus_blur,glass_blur,motion_blur,zoom_blur,snow,contrast,brightness,pixelate,jpeg_compression}
N=${N:-50000}                                   # draws per corruption, whole run
SEED=${SEED:-1}

# Every task must run the same command; only the shard differs.
exec vcr generate \
    --images "$IMAGES" \
    --corruptions "$CORRUPTIONS" \
    --n "$N" --seed "$SEED" \
    --out "$OUT" \
    --workers "${SLURM_CPUS_PER_TASK:-1}" \
    --resume
