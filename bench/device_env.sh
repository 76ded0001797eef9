# device_env — sourced by the device scripts (bench/device_*.sh) on the device machine, from
# the repo root with the carry .dev/: unpacks .dev/lib.tar.xz (and .dev/bin.tar.xz if there), puts .dev/lib on
# LD_LIBRARY_PATH and .dev/bin on PATH, sends stdout and stderr to $OUT/$1.log as well, and
# prints the GPU and the commit of every hspz binary in .dev/bin.
#   . bench/device_env.sh LOGNAME
mkdir -p .dev/lib .dev/bin && tar xJf .dev/lib.tar.xz -C .dev/lib
[ -f .dev/bin.tar.xz ] && tar xJf .dev/bin.tar.xz -C .dev/bin   # binaries packed (bench/device_pack.sh pack)
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
exec > >(tee "$OUT/$1.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for b in .dev/bin/hspz*; do [ -x "$b" ] && echo "$(basename "$b"): $("$b" version --verbose | sed -n 2p)"; done
