# Sourced by the GPU scripts: sets `cuda` to the CUDA toolkit to use, $CUDA_HOME,
# else the one whose nvcc is on PATH, else /usr/local/cuda. It sits next to each
# script, also in the directories the scripts carry to the GPU machine.
if [ -n "${CUDA_HOME:-}" ]; then
  cuda="$CUDA_HOME"
elif command -v nvcc >/dev/null; then
  cuda="$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)"
else
  cuda=/usr/local/cuda
fi
