package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.ErrorHandler;
import org.lockstep.api.Group;
import org.lockstep.api.Info;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.Keyval;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window;
import org.lockstep.spi.messaging.ArgumentChecks;
import org.lockstep.spi.messaging.ConstructingRequest;
import org.lockstep.spi.window.WindowFactory;

/**
 * Base class of a provider's communicators, after {@code java.nio.channels.spi}: every public
 * method is a {@code final} template that checks its arguments once for every provider, handles
 * {@code PROC_NULL} and derived datatypes (packed into, or unpacked from, a private copy unless
 * contiguous), and then calls a protected {@code impl…} hook that sees only valid ranks and
 * packed bytes. Blocking calls are written once, as their non-blocking form awaited. Collectives
 * go to the provider's {@link CollectiveEngine} (by default {@link PointToPointCollectives}) over
 * the communicator's private collective channel.
 *
 * <p>It is built in layers, one concern each: the hooks a provider implements
 * ({@link CommunicatorHooks}), {@link PointToPointTemplates}, {@link CollectiveTemplates},
 * {@link NonBlockingCollectiveTemplates}, {@link PersistentCollectiveTemplates}, {@link TopologyTemplates}, and here the
 * communicator constructors, names, attributes, hints, error handlers, memory and close. Every
 * public template hands its errors to the communicator's {@link ErrorHandling}.
 */
public abstract class AbstractCommunicator extends TopologyTemplates {
    private Group group;
    private volatile String name = "";
    private final CommunicatorAttributes attributes = new CommunicatorAttributes();
    private volatile Info info = Info.EMPTY;

    @Override
    public final Communicator dup() {
        return withHandler(() -> {
            checkOpen();
            return asDuplicate(implDup(), info);
        });
    }

    @Override
    public final Communicator dup(Info hints) {
        return withHandler(() -> {
            checkOpen();
            checkHints(hints);
            return asDuplicate(implDup(), hints);
        });
    }

    private static void checkHints(Info hints) {
        if (hints == null) {
            throw new LockstepException(ErrorClass.ARG, "hints are null (Info.EMPTY for none)");
        }
    }

    /**
     * The duplicate {@code made} with the hints {@code hints}, holding what this communicator's
     * copiers give; closed again if a copier throws.
     */
    private Communicator asDuplicate(Communicator made, Info hints) {
        if (!(made instanceof AbstractCommunicator copy)) {
            throw new LockstepException(ErrorClass.INTERN, getClass().getSimpleName() + "'s duplicate is not an AbstractCommunicator"
                    + " and cannot take the hints and attributes");
        }
        copy.info = hints;
        copy.errors.set(errors.handler());
        try {
            attributes.copyInto(this, copy.attributes);
        } catch (RuntimeException e) {
            try {
                made.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return made;
    }

    /** {@code made} (or null, for a rank outside it) with this communicator's error handler, as MPI's constructors give it. */
    private Communicator inheriting(Communicator made) {
        if (made instanceof AbstractCommunicator a) {
            a.errors.set(errors.handler());
        }
        return made;
    }

    @Override
    public final Communicator split(int color, int key) {
        return withHandler(() -> {
            checkOpen();
            if (color < 0 && color != UNDEFINED) {
                throw new LockstepException(ErrorClass.ARG, "split color " + color + " is negative and not UNDEFINED");
            }
            return inheriting(implSplit(color, key));
        });
    }

    @Override
    public final Group group() {
        return withHandler(() -> {
            checkOpen();
            Group g = group;
            if (g == null) {
                int[] world = new int[size()];
                for (int r = 0; r < world.length; r++) {
                    world[r] = implWorldRank(r);
                }
                g = Group.of(implWorldRank(rank()), world);
                group = g;
            }
            return g;
        });
    }

    @Override
    public final Group.Comparison compare(Communicator other) {
        return withHandler(() -> {
            if (other == null) {
                throw new LockstepException(ErrorClass.COMM, "cannot compare with a null communicator");
            }
            if (other == this) {
                return Group.Comparison.IDENT;
            }
            return switch (group().compare(other.group())) {
                case IDENT -> Group.Comparison.CONGRUENT;
                case SIMILAR -> Group.Comparison.SIMILAR;
                default -> Group.Comparison.UNEQUAL;
            };
        });
    }

    /** This communicator's ranks of {@code g}'s members, in {@code g}'s order; GROUP if one is not here. */
    private int[] ranksOf(Group g) {
        Group mine = group();
        int[] ranks = new int[g.size()];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = mine.rankOfWorld(g.worldRank(i));
            if (ranks[i] == UNDEFINED) {
                throw new LockstepException(ErrorClass.GROUP, "process " + g.worldRank(i) + " of the group is not in this communicator");
            }
        }
        return ranks;
    }

    @Override
    public final Communicator create(Group g) {
        return withHandler(() -> {
            checkOpen();
            if (g == null) {
                throw new LockstepException(ErrorClass.GROUP, "group is null");
            }
            ranksOf(g);
            int mine = g.rankOfWorld(implWorldRank(rank()));
            return split(mine == UNDEFINED ? UNDEFINED : 0, mine);
        });
    }

    @Override
    public final Communicator createGroup(Group g, int tag) {
        return withHandler(() -> {
            checkOpen();
            if (g == null) {
                throw new LockstepException(ErrorClass.GROUP, "group is null");
            }
            ArgumentChecks.checkSendTag(tag);
            int[] ranks = ranksOf(g);
            if (g.rankOfWorld(implWorldRank(rank())) == UNDEFINED) {
                throw new LockstepException(ErrorClass.GROUP, "createGroup is collective over the group's members only: rank " + rank()
                        + " is not one");
            }
            return inheriting(implCreateGroup(ranks, tag));
        });
    }

    @Override
    public final Communicator splitType(SplitType type, int key) {
        return withHandler(() -> {
            checkOpen();
            if (type == null) {
                throw new LockstepException(ErrorClass.ARG, "split type is null");
            }
            return inheriting(implSplitShared(key));
        });
    }

    @Override
    public final CommunicatorRequest idup() {
        return startedIdup(info);
    }

    @Override
    public final CommunicatorRequest idup(Info hints) {
        checkHints(hints);
        return startedIdup(hints);
    }

    private CommunicatorRequest startedIdup(Info hints) {
        return errors.handled(withHandler(() -> {
            checkOpen();
            CommunicatorRequest started = implIdup();
            return new ConstructingRequest(started, () -> asDuplicate(started.communicator(), hints));
        }));
    }

    @Override
    public final Intercommunicator createIntercommunicator(int localLeader, Communicator peer, int remoteLeader, int tag) {
        return withHandler(() -> {
            checkOpen();
            return IntercommunicatorCreation.create(this, localLeader, peer, remoteLeader, tag, new IntercommunicatorCreation.Spanning() {
                @Override
                public long propose() {
                    return implSpanningProposal();
                }

                @Override
                public Communicator make(int[] worldRanks, long agreed) {
                    return implSpanning(worldRanks, agreed);
                }
            });
        });
    }

    @Override
    public final void setName(String newName) {
        runWithHandler(() -> {
            checkOpen();
            if (newName == null) {
                throw new LockstepException(ErrorClass.ARG, "communicator name is null");
            }
            name = newName;
        });
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final void setInfo(Info hints) {
        runWithHandler(() -> {
            checkOpen();
            checkHints(hints);
            info = hints;
        });
    }

    @Override
    public final Info info() {
        return withHandler(() -> {
            checkOpen();
            return info;
        });
    }

    @Override
    public final void setErrorHandler(ErrorHandler handler) {
        checkOpen();
        errors.set(handler);
    }

    @Override
    public final ErrorHandler errorHandler() {
        return errors.handler();
    }

    @Override
    public final void callErrorHandler(LockstepException error) {
        errors.call(error);
    }

    @Override
    public final <T> void setAttribute(Keyval<T> key, T value) {
        runWithHandler(() -> {
            checkOpen();
            attributes.set(this, key, value);
        });
    }

    @Override
    public final <T> Optional<T> attribute(Keyval<T> key) {
        return withHandler(() -> {
            checkOpen();
            return key != null && key.isPredefined() ? PredefinedAttributes.of(key, this) : attributes.get(key);
        });
    }

    @Override
    public final void deleteAttribute(Keyval<?> key) {
        runWithHandler(() -> {
            checkOpen();
            attributes.delete(this, key);
        });
    }

    @Override
    public final MemorySegment allocate(long byteSize) {
        return withHandler(() -> {
            checkOpen();
            if (byteSize < 0) {
                throw new LockstepException(ErrorClass.ARG, "cannot allocate " + byteSize + " bytes");
            }
            return implAllocate(byteSize);
        });
    }

    @Override
    public final void free(MemorySegment segment) {
        runWithHandler(() -> {
            if (segment == null) {
                throw new LockstepException(ErrorClass.ARG, "cannot free a null segment");
            }
            implFree(segment);
        });
    }

    @Override
    public final Window allocateWindow(long byteSize, int dispUnit, Info hints) {
        return withHandler(() -> {
            checkOpen();
            WindowFactory.checkArguments(byteSize, dispUnit, hints);
            return implWindows().allocate(this, byteSize, dispUnit, hints);
        });
    }

    @Override
    public final Window allocateSharedWindow(long byteSize, int dispUnit, Info hints) {
        return withHandler(() -> {
            checkOpen();
            WindowFactory.checkArguments(byteSize, dispUnit, hints);
            return implWindows().allocateShared(this, byteSize, dispUnit, hints);
        });
    }

    @Override
    public final Window createWindow(MemorySegment base, int dispUnit, Info hints) {
        return withHandler(() -> {
            checkOpen();
            if (base == null) {
                throw new LockstepException(ErrorClass.BUFFER, "window memory is null");
            }
            WindowFactory.checkArguments(base.byteSize(), dispUnit, hints);
            return implWindows().create(this, base, dispUnit, hints);
        });
    }

    /** How this provider makes windows; by default over point-to-point ({@link WindowFactory#POINT_TO_POINT}). */
    protected WindowFactory implWindows() {
        return WindowFactory.POINT_TO_POINT;
    }

    /**
     * Ends this rank's use of the communicator; later calls fail with {@link ErrorClass#COMM}.
     * Idempotent. The attributes' deleters run first, while the communicator still answers them.
     */
    @Override
    public final void close() {
        runWithHandler(() -> {
            if (!closed) {
                try {
                    attributes.deleteAll(this);
                } finally {
                    closed = true;
                    implClose();
                }
            }
        });
    }
}
