#!/usr/bin/env python3
"""The disk's own bandwidth for O_DIRECT traffic like the simulator's: R reader and W writer threads, each with one
request of SIZE bytes in flight at random SIZE-aligned offsets of an existing FILE (its contents are overwritten: use a
kept disk between runs, under the measurement lock), for SECONDS; prints MB/s read, written and together.
    python3 impl-em-bsp/bench/disk-probe.py FILE 262144 4 4 5"""
import mmap
import os
import random
import sys
import threading
import time


def main():
    path, size, readers, writers, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    slots = os.path.getsize(path) // size
    moved = {"r": 0, "w": 0}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(kind):
        fd = os.open(path, (os.O_RDONLY if kind == "r" else os.O_WRONLY) | os.O_DIRECT)
        buffer = mmap.mmap(-1, size)  # page-aligned, as O_DIRECT needs
        rnd = random.Random()
        n = 0
        while time.monotonic() < stop:
            offset = rnd.randrange(slots) * size
            n += os.preadv(fd, [buffer], offset) if kind == "r" else os.pwritev(fd, [buffer], offset)
        os.close(fd)
        with lock:
            moved[kind] += n

    threads = [threading.Thread(target=worker, args=("r",)) for _ in range(readers)]
    threads += [threading.Thread(target=worker, args=("w",)) for _ in range(writers)]
    begun = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    dt = time.monotonic() - begun
    print(f"size={size} readers={readers} writers={writers} read_MBps={moved['r'] / dt / 1e6:.0f} "
          f"write_MBps={moved['w'] / dt / 1e6:.0f} total_MBps={(moved['r'] + moved['w']) / dt / 1e6:.0f}")


if __name__ == "__main__":
    main()
