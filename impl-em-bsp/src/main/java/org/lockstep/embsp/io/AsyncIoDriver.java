package org.lockstep.embsp.io;

import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.spi.device.DeviceException;

/**
 * Asynchronous I/O (seed 003 §5.1): requests are queued to a pool of I/O threads and
 * {@link #submit} returns at once, so a virtual processor keeps many requests in flight (a whole
 * swap across all disks, or α deliveries) and computes or communicates while they run. The pool's
 * threads do positional, possibly O_DIRECT, I/O; the kernel sees as many requests at once as the
 * pool has threads.
 */
public final class AsyncIoDriver implements IoDriver {
    private static final long SHUTDOWN_WAIT_SECONDS = 30;

    private final ExecutorService pool;

    public AsyncIoDriver(int threads) {
        this.pool = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("lockstep-embsp-io-", 0).daemon(true).factory());
    }

    @Override
    public IoHandle submit(Direction direction, FileChannel channel, long position, MemorySegment memory) {
        Future<?> future = pool.submit(() -> Transfers.run(direction, channel, position, memory));
        return new IoHandle() {
            @Override
            public void await() {
                boolean interrupted = false;
                try {
                    while (true) {
                        try {
                            future.get();
                            return;
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof LockstepException le) {
                        throw le;
                    }
                    throw new DeviceException("asynchronous I/O failed: " + cause, cause);
                } catch (CancellationException e) {
                    throw new LockstepException(ErrorClass.DEVICE, "asynchronous I/O was cancelled (driver closed)", e);
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public boolean isDone() {
                return future.isDone();
            }
        };
    }

    @Override
    public String name() {
        return "async";
    }

    @Override
    public void close() {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
