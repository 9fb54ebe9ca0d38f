#!/usr/bin/env bash
# Installs the Debian packages the peer benchmarks need and builds the peers into $PEERS_BUILD
# (default /tmp/lockstep-peers); nothing is written into the repository. Idempotent.
#   bash bench/peers/setup.sh                 # everything
#   bash bench/peers/setup.sh hw mpi          # only some: hw (probes), mpi (Open MPI + MPICH), stxxl, java
# Installing packages needs root (apt-get); when they are already there it does not.
#
#   $PEERS_BUILD/cacheline-probe [CPU_A CPU_B BATCHES ROUND_TRIPS]   cache-line hand-off between two CPUs
#   $PEERS_BUILD/memcpy-probe [REPEATS]                              one thread's memcpy bandwidth
#   $PEERS_BUILD/pingpong.openmpi, pingpong.mpich                    mpirun -np 2 ... [SCALE]
#   $PEERS_BUILD/collectives.openmpi, collectives.mpich              mpirun -np N ... [BUDGET_SECONDS]
#   $PEERS_BUILD/halo.openmpi, halo.mpich                            mpirun -np 2|4 ... [n,n,... [SECONDS_PER_ROW]]
#   $PEERS_BUILD/libround-trips.openmpi.so, libround-trips.mpich.so   pingpong.c's loop for InterleavedPingPong.java (FFM)
#   $PEERS_BUILD/stxxl-sort sort|ksort N_KEYS M_MIB [SEED]           (em/stxxl-run.sh runs it)
#   $PEERS_BUILD/ram-sort N_KEYS [SEED]   (the same keys sorted in RAM: the floor; sort-vs-stxxl.sh RUNS=ram)
#   $PEERS_BUILD/ompi-java/mpi.jar                                   Open MPI's Java bindings (part java)
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
        java) packages+=(openmpi-bin libopenmpi-dev dpkg-dev) ;;
        *) echo "setup.sh: unknown part '$part' (hw, mpi, stxxl, java)" >&2; exit 2 ;;
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
                "/usr/bin/mpicc.$mpi" -O2 -o "$build/halo.$mpi" "$here/mpi/halo.c"
                "/usr/bin/mpicc.$mpi" -O2 -shared -fPIC -o "$build/libround-trips.$mpi.so" "$here/mpi/round-trips.c"
            done
            ;;
        java)
            # Debian ships Open MPI's libmpi_java.so (libopenmpi3) but not its mpi.jar: compile the jar from the
            # Java sources of the installed version's Debian source package, fetched with a private deb-src
            # list (the system's apt configuration is left alone).
            jdir="$build/ompi-java"
            if [ ! -f "$jdir/mpi.jar" ]; then
                version=$(dpkg-query -W -f='${source:Version}' libopenmpi-dev)  # the source's version, without a binNMU suffix
                mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
                [ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
                suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
                mkdir -p "$jdir/apt/lists/partial" "$jdir/src" "$jdir/classes"
                echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" > "$jdir/apt/sources.list"
                apt_options=(-o Dir::Etc::SourceList="$jdir/apt/sources.list" -o Dir::Etc::SourceParts="$jdir/apt/none"
                             -o Dir::State::Lists="$jdir/apt/lists")
                apt-get "${apt_options[@]}" update -q
                (cd "$jdir/src" && apt-get "${apt_options[@]}" source --download-only "openmpi=$version")
                (cd "$jdir/src" && tar xJf openmpi_*.orig.tar.* --wildcards '*/ompi/mpi/java/java/*.java')
                javac -nowarn -d "$jdir/classes" "$jdir"/src/openmpi-*/ompi/mpi/java/java/*.java
                jar cf "$jdir/mpi.jar" -C "$jdir/classes" .
            fi
            ;;
        stxxl)
            g++ -O3 -DNDEBUG -fopenmp -std=c++11 -o "$build/stxxl-sort" "$here/em/stxxl-sort.cpp" -lstxxl -lpthread
            g++ -O3 -DNDEBUG -fopenmp -std=c++11 -o "$build/ram-sort" "$here/em/ram-sort.cpp"
            ;;
    esac
done
echo "peers built in $build:"
ls "$build"
