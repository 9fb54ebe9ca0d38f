#!/usr/bin/env bash
# Installs the Debian packages the peer benchmarks need and builds the peers into $PEERS_BUILD
# (default /tmp/lockstep-peers); nothing is written into the repository. Idempotent.
#   bash bench/peers/setup.sh                 # everything
#   bash bench/peers/setup.sh hw mpi          # only some: hw (probes), mpi (Open MPI + MPICH), stxxl
# Installing packages needs root (apt-get); when they are already there it does not.
#
#   $PEERS_BUILD/cacheline-probe [CPU_A CPU_B BATCHES ROUND_TRIPS]   cache-line hand-off between two CPUs
#   $PEERS_BUILD/memcpy-probe [REPEATS]                              one thread's memcpy bandwidth
#   $PEERS_BUILD/pingpong.openmpi, pingpong.mpich                    mpirun -np 2 ... [SCALE]
#   $PEERS_BUILD/collectives.openmpi, collectives.mpich              mpirun -np N ... [BUDGET_SECONDS]
#   $PEERS_BUILD/stxxl-sort sort|ksort N_KEYS M_MIB [SEED]           (em/stxxl-run.sh runs it)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${PEERS_BUILD:-/tmp/lockstep-peers}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(hw mpi stxxl)

packages=(gcc g++ time)
for part in "${parts[@]}"; do
    case $part in
        hw) ;;
        mpi) packages+=(openmpi-bin libopenmpi-dev mpich libmpich-dev) ;;
        stxxl) packages+=(libstxxl-dev) ;;
        *) echo "setup.sh: unknown part '$part' (hw, mpi, stxxl)" >&2; exit 2 ;;
    esac
done
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" > /dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "setup.sh: missing Debian packages: ${missing[*]}; run as root, or: sudo apt-get install ${missing[*]}" >&2
        exit 2
    fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

mkdir -p "$build"
for part in "${parts[@]}"; do
    case $part in
        hw)
            gcc -O2 -pthread -o "$build/cacheline-probe" "$here/hw/cacheline-probe.c"
            gcc -O2 -o "$build/memcpy-probe" "$here/hw/memcpy-probe.c"
            ;;
        mpi)
            # by explicit path: Open MPI and MPICH compete for the mpicc/mpirun alternatives
            for mpi in openmpi mpich; do
                "/usr/bin/mpicc.$mpi" -O2 -o "$build/pingpong.$mpi" "$here/mpi/pingpong.c"
                "/usr/bin/mpicc.$mpi" -O2 -o "$build/collectives.$mpi" "$here/mpi/collectives.c"
            done
            ;;
        stxxl)
            g++ -O3 -DNDEBUG -fopenmp -std=c++11 -o "$build/stxxl-sort" "$here/em/stxxl-sort.cpp" -lstxxl -lpthread
            ;;
    esac
done
echo "peers built in $build:"
ls "$build"
