package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * A communicator ({@code MPI_Comm}): point-to-point communication, the collectives shared by
 * intra- and intercommunicators, attributes, names and error handling, over a Lockstep
 * {@link Communicator}.
 *
 * <p>Buffers are Java arrays of a primitive type or {@code java.nio} buffers; the non-blocking
 * calls take direct buffers (from {@code MPI.newIntBuffer} ...), as in the Open MPI bindings.
 * Counts are in elements of the datatype.
 */
public class Comm implements Freeable, Cloneable {
    /** {@code splitType}'s kind: ranks that share memory ({@code MPI_COMM_TYPE_SHARED}). */
    public static final int TYPE_SHARED = 0;

    /** The Lockstep communicator; null before {@code MPI.Init} and after {@link #free()}. */
    Communicator comm;
    /** World ranks of the members, in rank order. */
    int[] members;
    private String name;
    Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    final Attributes attributes = new Attributes(Attributes.Kind.COMM);
    /** A private duplicate for collectives this layer builds from point-to-point, made on first use (collectively). */
    private Communicator shadow;
    /** The request of an {@link #iDup} that made this communicator; null otherwise. */
    private Request dupRequest;
    /** The duplicate of an {@link #iDup} until its first use after completion binds {@link #comm}. */
    private org.lockstep.api.CommunicatorRequest pendingDup;

    Comm(String name) {
        this.name = name;
    }

    Comm(Communicator comm, int[] members, String name) {
        this.comm = comm;
        this.members = members;
        this.name = name;
    }

    /** Binds {@code MPI.COMM_WORLD} and {@code MPI.COMM_SELF} at {@code MPI.Init}. */
    final void bind(Communicator communicator) {
        comm = communicator;
        if (this == MPI.COMM_SELF) {
            members = new int[] {MPI.COMM_WORLD.comm.rank()};
        } else {
            members = new int[communicator.size()];
            for (int i = 0; i < members.length; i++) {
                members[i] = i;
            }
        }
    }

    final void unbind() {
        comm = null;
        shadow = null;
    }

    /** The Lockstep communicator, after the checks every call makes. */
    final Communicator live(String call) throws MPIException {
        MPI.check();
        Communicator c = comm;
        if (c == null && pendingDup != null) {
            c = bindDuplicate(call);
        }
        if (c == null) {
            throw ErrorClasses.argument(ErrorClasses.COMM, call, "the communicator " + name + " was freed");
        }
        return c;
    }

    final Errhandler errhandler() {
        return errhandler;
    }

    /** What to throw for a failed call: its error handler decides (a fatal one aborts the job). */
    final MPIException fail(String call, LockstepException e) {
        return errhandler.handle(call, e);
    }

    /** The same for an error this layer finds (a fatal handler aborts for it too). */
    final MPIException fail(MPIException e) {
        return errhandler.handle(e.getMessage(), e);
    }

    /** Copies what a duplicate inherits from this layer: error handler and attributes (Lockstep's dup passes the hints on). */
    final <T extends Comm> T inherit(T copy) {
        copy.errhandler = errhandler;
        attributes.copyTo(copy.attributes);
        return copy;
    }

    final Communicator shadow(String call) throws MPIException {
        if (shadow == null) {
            try {
                shadow = live(call).dup();
            } catch (LockstepException e) {
                throw fail(call, e);
            }
        }
        return shadow;
    }

    @Override
    public Comm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A communicator with the same group and a new context ({@code MPI_Comm_dup}); collective. */
    public Comm dup() throws MPIException {
        return inherit(new Comm(dupCommunicator("Comm.dup", null), members, name + " (dup)"));
    }

    /** Lockstep's dup, with the given hints instead of this communicator's unless they are null. */
    final Communicator dupCommunicator(String call, Info hints) throws MPIException {
        try {
            return hints == null ? live(call).dup() : live(call).dup(Info.toHints(hints));
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /**
     * Non-blocking {@link #dup} ({@code MPI_Comm_idup}): the copy may be used once the request of
     * its {@link #getRequest()} has completed.
     */
    public Comm iDup() throws MPIException {
        return inherit(new Comm(null, members, name + " (idup)")).awaitingDuplicate(startDup("Comm.iDup"), "Comm.iDup");
    }

    final org.lockstep.api.CommunicatorRequest startDup(String call) throws MPIException {
        try {
            return live(call).idup();
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /** Makes this the copy an {@link #iDup} is making with {@code pending}. */
    final <T extends Comm> T awaitingDuplicate(org.lockstep.api.CommunicatorRequest pending, String call) {
        pendingDup = pending;
        dupRequest = new Request(this, call, pending);
        @SuppressWarnings("unchecked")
        T self = (T) this;
        return self;
    }

    private Communicator bindDuplicate(String call) throws MPIException {
        try {
            comm = pendingDup.communicator();
        } catch (LockstepException e) {
            throw fail(ErrorClasses.argument(ErrorClasses.ofLockstep(e), call, "the communicator of an iDup is used before its request "
                    + "(getRequest()) has completed: " + e.getMessage()));
        }
        pendingDup = null;
        return comm;
    }

    /** {@link #dup} with hints instead of this communicator's ({@code MPI_Comm_dup_with_info}). */
    public Comm dupWithInfo(Info info) throws MPIException {
        return inherit(new Comm(dupCommunicator("Comm.dupWithInfo", info == null ? MPI.INFO_NULL : info), members, name + " (dup)"));
    }

    /** The request of the {@link #iDup} that made this communicator; {@code MPI.REQUEST_NULL} for others. */
    public final Request getRequest() {
        return dupRequest == null ? MPI.REQUEST_NULL : dupRequest;
    }

    /** Number of ranks ({@code MPI_Comm_size}). */
    public final int getSize() throws MPIException {
        return live("Comm.getSize").size();
    }

    /** This process's rank ({@code MPI_Comm_rank}). */
    public final int getRank() throws MPIException {
        return live("Comm.getRank").rank();
    }

    /**
     * {@code MPI.IDENT} for the same communicator, {@code MPI.CONGRUENT} for the same group in
     * another context, {@code MPI.SIMILAR} for the same members in another order, else
     * {@code MPI.UNEQUAL} ({@code MPI_Comm_compare}).
     */
    public static int compare(Comm comm1, Comm comm2) throws MPIException {
        comm1.live("Comm.compare");
        comm2.live("Comm.compare");
        if (comm1.comm == comm2.comm) {
            return MPI.IDENT;
        }
        int groups = Group.compare(new Group(comm1.members), new Group(comm2.members));
        return groups == MPI.IDENT ? MPI.CONGRUENT : groups;
    }

    /** Frees the communicator ({@code MPI_Comm_free}); collective. */
    @Override
    public void free() throws MPIException {
        Communicator c = live("Comm.free");
        if (this == MPI.COMM_WORLD || this == MPI.COMM_SELF) {
            throw fail(ErrorClasses.argument(ErrorClasses.COMM, "Comm.free", "cannot free " + name));
        }
        try {
            if (shadow != null) {
                shadow.close();
            }
            c.close();
        } catch (LockstepException e) {
            throw fail("Comm.free", e);
        } finally {
            comm = null;
            shadow = null;
        }
    }

    /** Whether the communicator was freed ({@code MPI_COMM_NULL}). */
    public final boolean isNull() {
        return comm == null && pendingDup == null;
    }

    /** Sets hints ({@code MPI_Comm_set_info}): Lockstep's communicator keeps them. */
    public final void setInfo(Info info) throws MPIException {
        Communicator c = live("Comm.setInfo");
        try {
            c.setInfo(Info.toHints(info));
        } catch (LockstepException e) {
            throw fail("Comm.setInfo", e);
        }
    }

    /** The hints in use ({@code MPI_Comm_get_info}), as a new info object. */
    public final Info getInfo() throws MPIException {
        Communicator c = live("Comm.getInfo");
        try {
            return Info.ofHints(c.info());
        } catch (LockstepException e) {
            throw fail("Comm.getInfo", e);
        }
    }

    /** Waits for pending communication, then frees the communicator ({@code MPI_Comm_disconnect}). */
    public final void disconnect() throws MPIException {
        free();
    }

    /** The group of the communicator ({@code MPI_Comm_group}). */
    public final Group getGroup() throws MPIException {
        live("Comm.getGroup");
        return new Group(members.clone());
    }

    /** Whether this is an intercommunicator ({@code MPI_Comm_test_inter}). */
    public final boolean isInter() throws MPIException {
        live("Comm.isInter");
        return this instanceof Intercomm;
    }

    /**
     * An intercommunicator between {@code localComm}'s group and another, disjoint group
     * ({@code MPI_Intercomm_create}); called on the peer communicator that holds both leaders,
     * collective over {@code localComm}. {@code remoteLeader} is the other leader's rank here.
     */
    public final Intercomm createIntercomm(Comm localComm, int localLeader, int remoteLeader, int tag) throws MPIException {
        String call = "Comm.createIntercomm";
        Communicator local = localComm.live(call);
        // only the local leader uses the peer communicator (MPI: the argument is significant there only)
        Communicator peer = local.rank() == localLeader ? live(call) : null;
        try {
            org.lockstep.api.Intercommunicator inter = local.createIntercommunicator(localLeader, peer, remoteLeader, tag);
            return new Intercomm(inter, localComm.members, name + " (intercomm)");
        } catch (LockstepException e) {
            throw localComm.fail(call, e);
        }
    }

    // ---- point-to-point (MPI 4.1 chapter 3) ----

    /** Standard send ({@code MPI_Send}). */
    public final void send(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live("Comm.send");
        Buffers.Typed data = Buffers.typed(buf, type, type.wireCount("Comm.send", count), "Comm.send");
        try {
            c.send(data.segment(), data.count(), data.type(), dest, tag);
        } catch (LockstepException e) {
            throw fail("Comm.send", e);
        }
    }

    /** Blocking receive ({@code MPI_Recv}). */
    public final Status recv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        Communicator c = live("Comm.recv");
        Buffers.Typed data = Buffers.typed(buf, type, type.wireCount("Comm.recv", count), "Comm.recv");
        try {
            Status status = Status.of(c.recv(data.segment(), data.count(), data.type(), source, tag));
            Buffers.copyBack(buf, data.segment());
            return status;
        } catch (LockstepException e) {
            Buffers.copyBack(buf, data.segment());
            throw fail("Comm.recv", e);
        }
    }

    /** Sends one message and receives another ({@code MPI_Sendrecv}). */
    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest, int sendtag,
                                 Object recvbuf, int recvcount, Datatype recvtype, int source, int recvtag) throws MPIException {
        Communicator c = live("Comm.sendRecv");
        Buffers.Typed s = Buffers.typed(sendbuf, sendtype, sendtype.wireCount("Comm.sendRecv", sendcount), "Comm.sendRecv");
        Buffers.Typed r = Buffers.typed(recvbuf, recvtype, recvtype.wireCount("Comm.sendRecv", recvcount), "Comm.sendRecv");
        try {
            Status status = Status.of(c.sendrecv(s.segment(), s.count(), s.type(), dest, sendtag, r.segment(), r.count(), r.type(),
                    source, recvtag));
            Buffers.copyBack(recvbuf, r.segment());
            return status;
        } catch (LockstepException e) {
            throw fail("Comm.sendRecv", e);
        }
    }

    /** Sends the buffer and receives into it ({@code MPI_Sendrecv_replace}). */
    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest, int sendtag, int source, int recvtag)
            throws MPIException {
        Communicator c = live("Comm.sendRecvReplace");
        long n = type.wireCount("Comm.sendRecvReplace", count);
        MemorySegment data = Buffers.segment(buf, count, "Comm.sendRecvReplace");
        try {
            // the outgoing message travels packed, from a copy, so the receive may overwrite the buffer
            MemorySegment outgoing = Packed.copyOf(data, n, type.wire);
            Status status = Status.of(c.sendrecv(outgoing, outgoing.byteSize(), org.lockstep.api.Datatype.BYTE, dest, sendtag,
                    data, n, type.wire, source, recvtag));
            Buffers.copyBack(buf, data);
            return status;
        } catch (LockstepException e) {
            throw fail("Comm.sendRecvReplace", e);
        }
    }

    /** Buffered send: copies the message into the attached buffer and returns ({@code MPI_Bsend}). */
    public final void bSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live("Comm.bSend");
        long n = type.wireCount("Comm.bSend", count);
        try {
            MPI.bsendBuffer("Comm.bSend").send("Comm.bSend", c, Buffers.segment(buf, count, "Comm.bSend"), n, type.wire, dest, tag);
        } catch (LockstepException e) {
            throw fail("Comm.bSend", e);
        } catch (MPIException e) {
            throw fail(e);
        }
    }

    /** Synchronous send: returns once the receive has started ({@code MPI_Ssend}). */
    public final void sSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live("Comm.sSend");
        long n = type.wireCount("Comm.sSend", count);
        try {
            c.ssend(Buffers.segment(buf, count, "Comm.sSend"), n, type.wire, dest, tag);
        } catch (LockstepException e) {
            throw fail("Comm.sSend", e);
        }
    }

    /** Ready send ({@code MPI_Rsend}); a standard send satisfies its contract. */
    public final void rSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        Communicator c = live("Comm.rSend");
        long n = type.wireCount("Comm.rSend", count);
        try {
            c.send(Buffers.segment(buf, count, "Comm.rSend"), n, type.wire, dest, tag);
        } catch (LockstepException e) {
            throw fail("Comm.rSend", e);
        }
    }

    /** Non-blocking send ({@code MPI_Isend}). */
    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(this, "Comm.iSend", startSend("Comm.iSend", Mode.STANDARD, buf, count, type, dest, tag));
    }

    /** Non-blocking buffered send ({@code MPI_Ibsend}). */
    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(this, "Comm.ibSend", startSend("Comm.ibSend", Mode.BUFFERED, buf, count, type, dest, tag));
    }

    /** Non-blocking synchronous send ({@code MPI_Issend}). */
    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(this, "Comm.isSend", startSend("Comm.isSend", Mode.SYNCHRONOUS, buf, count, type, dest, tag));
    }

    /** Non-blocking ready send ({@code MPI_Irsend}). */
    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(this, "Comm.irSend", startSend("Comm.irSend", Mode.STANDARD, buf, count, type, dest, tag));
    }

    /** Non-blocking receive ({@code MPI_Irecv}). */
    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        return new Request(this, "Comm.iRecv", startReceive("Comm.iRecv", buf, count, type, source, tag));
    }

    /** Persistent standard send ({@code MPI_Send_init}). */
    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend("Comm.sendInit", Mode.STANDARD, buf, count, type, dest, tag);
    }

    /** Persistent buffered send ({@code MPI_Bsend_init}). */
    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend("Comm.bSendInit", Mode.BUFFERED, buf, count, type, dest, tag);
    }

    /** Persistent synchronous send ({@code MPI_Ssend_init}). */
    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend("Comm.sSendInit", Mode.SYNCHRONOUS, buf, count, type, dest, tag);
    }

    /** Persistent ready send ({@code MPI_Rsend_init}). */
    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return persistentSend("Comm.rSendInit", Mode.STANDARD, buf, count, type, dest, tag);
    }

    /** Persistent receive ({@code MPI_Recv_init}). */
    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        live("Comm.recvInit");
        type.wireCount("Comm.recvInit", count);
        return new Prequest(this, "Comm.recvInit", () -> startReceive("Comm.recvInit", buf, count, type, source, tag));
    }

    private enum Mode { STANDARD, SYNCHRONOUS, BUFFERED }

    private Prequest persistentSend(String call, Mode mode, Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        live(call);
        type.wireCount(call, count);
        return new Prequest(this, call, () -> startSend(call, mode, buf, count, type, dest, tag));
    }

    private org.lockstep.api.Request startSend(String call, Mode mode, Buffer buf, int count, Datatype type, int dest, int tag)
            throws MPIException {
        Communicator c = live(call);
        long n = type.wireCount(call, count);
        MemorySegment data = Buffers.segment(buf, count, call);
        try {
            return switch (mode) {
                case STANDARD -> c.isend(data, n, type.wire, dest, tag);
                case SYNCHRONOUS -> c.issend(data, n, type.wire, dest, tag);
                case BUFFERED -> {
                    MPI.bsendBuffer(call).send(call, c, data, n, type.wire, dest, tag);
                    yield new CompletedRequest(org.lockstep.api.Status.of(MPI.ANY_SOURCE, MPI.ANY_TAG, 0));
                }
            };
        } catch (LockstepException e) {
            throw fail(call, e);
        } catch (MPIException e) {
            throw fail(e);
        }
    }

    private org.lockstep.api.Request startReceive(String call, Buffer buf, int count, Datatype type, int source, int tag)
            throws MPIException {
        Communicator c = live(call);
        long n = type.wireCount(call, count);
        MemorySegment data = Buffers.segment(buf, count, call);
        try {
            return c.irecv(data, n, type.wire, source, tag);
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /** Packs {@code incount} elements into {@code outbuf} from byte {@code position}; returns the new position ({@code MPI_Pack}). */
    public final int pack(Object inbuf, int incount, Datatype type, byte[] outbuf, int position) throws MPIException {
        live("Comm.pack");
        long n = type.wireCount("Comm.pack", incount);
        try {
            Buffers.Typed in = Buffers.typed(inbuf, type, n, "Comm.pack");
            return (int) in.type().pack(in.segment(), in.count(), MemorySegment.ofArray(outbuf), position);
        } catch (LockstepException | IndexOutOfBoundsException e) {
            throw fail(ErrorClasses.argument(ErrorClasses.TRUNCATE, "Comm.pack", incount + " elements of " + type
                    + " do not fit at position " + position + " of a buffer of " + outbuf.length + ": " + e.getMessage()));
        }
    }

    /** Unpacks {@code outcount} elements from byte {@code position} of {@code inbuf}; returns the new position ({@code MPI_Unpack}). */
    public final int unpack(byte[] inbuf, int position, Object outbuf, int outcount, Datatype type) throws MPIException {
        live("Comm.unpack");
        long n = type.wireCount("Comm.unpack", outcount);
        Buffers.Typed out = Buffers.typed(outbuf, type, n, "Comm.unpack");
        try {
            int end = (int) out.type().unpack(MemorySegment.ofArray(inbuf), position, out.segment(), out.count());
            Buffers.copyBack(outbuf, out.segment());
            return end;
        } catch (LockstepException | IndexOutOfBoundsException e) {
            throw fail(ErrorClasses.argument(ErrorClasses.TRUNCATE, "Comm.unpack", outcount + " elements of " + type
                    + " are not there at position " + position + " of a buffer of " + inbuf.length + ": " + e.getMessage()));
        }
    }

    /** Bytes that {@link #pack} needs for {@code incount} elements ({@code MPI_Pack_size}). */
    public final int packSize(int incount, Datatype type) throws MPIException {
        live("Comm.packSize");
        return (int) type.wire.packSize(type.wireCount("Comm.packSize", incount));
    }

    /** The status of a matching message if one has arrived, else null ({@code MPI_Iprobe}). */
    public final Status iProbe(int source, int tag) throws MPIException {
        Communicator c = live("Comm.iProbe");
        try {
            Optional<org.lockstep.api.Status> s = c.iprobe(source, tag);
            return s.map(Status::of).orElse(null);
        } catch (LockstepException e) {
            throw fail("Comm.iProbe", e);
        }
    }

    /** Waits for a matching message without receiving it ({@code MPI_Probe}). */
    public final Status probe(int source, int tag) throws MPIException {
        Communicator c = live("Comm.probe");
        try {
            return Status.of(c.probe(source, tag));
        } catch (LockstepException e) {
            throw fail("Comm.probe", e);
        }
    }

    // ---- attributes, topology, errors ----

    /** A new attribute key for communicators ({@code MPI_Comm_create_keyval}). */
    public static int createKeyval() throws MPIException {
        MPI.check();
        return Attributes.createKeyval(Attributes.Kind.COMM);
    }

    /** Frees an attribute key ({@code MPI_Comm_free_keyval}). */
    public static void freeKeyval(int keyval) throws MPIException {
        MPI.check();
        Attributes.freeKeyval(Attributes.Kind.COMM, keyval, "Comm.freeKeyval");
    }

    /** Stores an attribute ({@code MPI_Comm_set_attr}); the value must be serializable and is copied. */
    public final void setAttr(int keyval, Object value) throws MPIException {
        live("Comm.setAttr");
        attributes.set(keyval, value, "Comm.setAttr");
    }

    /**
     * An attribute, or null ({@code MPI_Comm_get_attr}). The predefined keys give Integers:
     * {@code MPI.TAG_UB}, {@code MPI.HOST} ({@code MPI.PROC_NULL}: no host is special),
     * {@code MPI.IO} (every rank may do I/O), {@code MPI.WTIME_IS_GLOBAL} (0),
     * {@code MPI.UNIVERSE_SIZE} and {@code MPI.APPNUM}.
     */
    public final Object getAttr(int keyval) throws MPIException {
        Communicator c = live("Comm.getAttr");
        return switch (keyval) {
            case MPI.TAG_UB -> Communicator.TAG_UB;
            case MPI.HOST -> MPI.PROC_NULL;
            case MPI.IO -> MPI.ANY_SOURCE;
            case MPI.WTIME_IS_GLOBAL -> 0;
            case MPI.UNIVERSE_SIZE -> MPI.COMM_WORLD.comm.size();
            case MPI.APPNUM -> 0;
            case MPI.LASTUSEDCODE -> ErrorClasses.LASTCODE;
            default -> keyval >= 0 && keyval < 16 ? null : attributes.get(keyval, "Comm.getAttr");
        };
    }

    /** Deletes an attribute ({@code MPI_Comm_delete_attr}). */
    public final void deleteAttr(int keyval) throws MPIException {
        live("Comm.deleteAttr");
        attributes.delete(keyval, "Comm.deleteAttr");
    }

    /** {@code MPI.CART}, {@code MPI.GRAPH}, {@code MPI.DIST_GRAPH} or {@code MPI.UNDEFINED} ({@code MPI_Topo_test}). */
    public final int getTopology() throws MPIException {
        live("Comm.getTopology");
        return topology();
    }

    int topology() {
        return MPI.UNDEFINED;
    }

    /** Ends every rank of the job with {@code errorcode} as exit status ({@code MPI_Abort}). */
    public final void abort(int errorcode) throws MPIException {
        live("Comm.abort");
        Session.abortJob(errorcode, "MPI_Abort(" + name + ", " + errorcode + ")");
    }

    /** Sets what a failed call does ({@code MPI_Comm_set_errhandler}). */
    public final void setErrhandler(Errhandler errhandler) throws MPIException {
        live("Comm.setErrhandler");
        this.errhandler = errhandler;
    }

    /** The error handler ({@code MPI_Comm_get_errhandler}). */
    public final Errhandler getErrhandler() throws MPIException {
        live("Comm.getErrhandler");
        return errhandler;
    }

    /** Invokes the error handler with {@code errorCode} ({@code MPI_Comm_call_errhandler}). */
    public void callErrhandler(int errorCode) throws MPIException {
        live("Comm.callErrhandler");
        errhandler.raise("Comm.callErrhandler", new MPIException(errorCode, "error " + errorCode + " raised on " + name, null));
    }

    // ---- collectives (MPI 4.1 chapter 6) ----

    /** Waits until every rank has called it ({@code MPI_Barrier}). */
    public final void barrier() throws MPIException {
        Communicator c = live("Comm.barrier");
        try {
            c.barrier();
        } catch (LockstepException e) {
            throw fail("Comm.barrier", e);
        }
    }

    /** Non-blocking barrier ({@code MPI_Ibarrier}). */
    public final Request iBarrier() throws MPIException {
        Communicator c = live("Comm.iBarrier");
        try {
            return new Request(this, "Comm.iBarrier", c.ibarrier());
        } catch (LockstepException e) {
            throw fail("Comm.iBarrier", e);
        }
    }

    /** The root's buffer to every rank ({@code MPI_Bcast}). */
    public final void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        Communicator c = live("Comm.bcast");
        long n = type.wireCount("Comm.bcast", count);
        MemorySegment data = Buffers.segment(buf, "Comm.bcast");
        try {
            c.bcast(data, n, type.wire, root);
            Buffers.copyBack(buf, data);
        } catch (LockstepException e) {
            throw fail("Comm.bcast", e);
        }
    }

    /** Non-blocking broadcast ({@code MPI_Ibcast}). */
    public final Request iBcast(Buffer buf, int count, Datatype type, int root) throws MPIException {
        Communicator c = live("Comm.iBcast");
        long n = type.wireCount("Comm.iBcast", count);
        try {
            return new Request(this, "Comm.iBcast", c.ibcast(Buffers.segment(buf, "Comm.iBcast"), n, type.wire, root));
        } catch (LockstepException e) {
            throw fail("Comm.iBcast", e);
        }
    }

    /** Every rank's data to the root, in rank order ({@code MPI_Gather}). */
    public final void gather(Object sendbuf, int sendcount, Datatype sendtype,
                             Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        collectives().gather("Comm.gather", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    }

    /** {@link #gather} in place: the root's own block is already in {@code buf} ({@code MPI_IN_PLACE}). */
    public final void gather(Object buf, int count, Datatype type, int root) throws MPIException {
        collectives().gatherInPlace("Comm.gather", false, buf, count, type, root);
    }

    public final Request iGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        return collectives().gather("Comm.iGather", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    }

    public final Request iGather(Buffer buf, int count, Datatype type, int root) throws MPIException {
        return collectives().gatherInPlace("Comm.iGather", true, buf, count, type, root);
    }

    /** {@link #gather} with per-rank counts and displacements at the root ({@code MPI_Gatherv}). */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype,
                              Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        collectives().gatherv("Comm.gatherv", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root);
    }

    /** {@link #gatherv} at the root, in place. */
    public final void gatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        collectives().gatherv("Comm.gatherv", false, null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root);
    }

    /** {@link #gatherv} at a rank that is not the root. */
    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        collectives().gatherv("Comm.gatherv", false, sendbuf, sendcount, sendtype, null, null, null, sendtype, root);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int[] recvcount, int[] displs,
                                  Datatype recvtype, int root) throws MPIException {
        return collectives().gatherv("Comm.iGatherv", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root);
    }

    public final Request iGatherv(Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        return collectives().gatherv("Comm.iGatherv", true, null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        return collectives().gatherv("Comm.iGatherv", true, sendbuf, sendcount, sendtype, null, null, null, sendtype, root);
    }

    /** Block i of the root's buffer to rank i ({@code MPI_Scatter}). */
    public final void scatter(Object sendbuf, int sendcount, Datatype sendtype,
                              Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        collectives().scatter("Comm.scatter", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    }

    /** {@link #scatter} in place: the root keeps its block in {@code buf}; other ranks receive into it. */
    public final void scatter(Object buf, int count, Datatype type, int root) throws MPIException {
        collectives().scatterInPlace("Comm.scatter", false, buf, count, type, root);
    }

    public final Request iScatter(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        return collectives().scatter("Comm.iScatter", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    }

    public final Request iScatter(Buffer buf, int count, Datatype type, int root) throws MPIException {
        return collectives().scatterInPlace("Comm.iScatter", true, buf, count, type, root);
    }

    /** {@link #scatter} with per-rank counts and displacements at the root ({@code MPI_Scatterv}). */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
                               Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        collectives().scatterv("Comm.scatterv", false, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root);
    }

    /** {@link #scatterv} at the root, in place. */
    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root) throws MPIException {
        collectives().scatterv("Comm.scatterv", false, sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root);
    }

    /** {@link #scatterv} at a rank that is not the root. */
    public final void scatterv(Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        collectives().scatterv("Comm.scatterv", false, null, null, null, recvtype, recvbuf, recvcount, recvtype, root);
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Buffer recvbuf, int recvcount,
                                   Datatype recvtype, int root) throws MPIException {
        return collectives().scatterv("Comm.iScatterv", true, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root);
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root) throws MPIException {
        return collectives().scatterv("Comm.iScatterv", true, sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root);
    }

    public final Request iScatterv(Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        return collectives().scatterv("Comm.iScatterv", true, null, null, null, recvtype, recvbuf, recvcount, recvtype, root);
    }

    /** Every rank's data to every rank ({@code MPI_Allgather}). */
    public final void allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        collectives().allGather("Comm.allGather", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    /** {@link #allGather} in place: each rank's block is already in {@code buf}. */
    public final void allGather(Object buf, int count, Datatype type) throws MPIException {
        collectives().allGather("Comm.allGather", false, null, count, type, buf, count, type);
    }

    public final Request iAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        return collectives().allGather("Comm.iAllGather", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    public final Request iAllGather(Buffer buf, int count, Datatype type) throws MPIException {
        return collectives().allGather("Comm.iAllGather", true, null, count, type, buf, count, type);
    }

    /** {@link #allGather} with per-rank counts and displacements ({@code MPI_Allgatherv}). */
    public final void allGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount, int[] displs,
                                 Datatype recvtype) throws MPIException {
        collectives().allGatherv("Comm.allGatherv", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype);
    }

    /** {@link #allGatherv} in place. */
    public final void allGatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        collectives().allGatherv("Comm.allGatherv", false, null, 0, recvtype, recvbuf, recvcount, displs, recvtype);
    }

    public final Request iAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int[] recvcount, int[] displs,
                                     Datatype recvtype) throws MPIException {
        return collectives().allGatherv("Comm.iAllGatherv", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype);
    }

    public final Request iAllGatherv(Buffer buf, int[] count, int[] displs, Datatype type) throws MPIException {
        return collectives().allGatherv("Comm.iAllGatherv", true, null, 0, type, buf, count, displs, type);
    }

    /** Block j of rank i to block i of rank j ({@code MPI_Alltoall}). */
    public final void allToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        collectives().allToAll("Comm.allToAll", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    public final Request iAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        return collectives().allToAll("Comm.iAllToAll", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    /** {@link #allToAll} with per-peer counts and displacements ({@code MPI_Alltoallv}). */
    public final void allToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        collectives().allToAllv("Comm.allToAllv", false, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype);
    }

    public final Request iAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                    Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        return collectives().allToAllv("Comm.iAllToAllv", true, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype);
    }

    /** {@link #allToAllv} with a datatype per peer and byte displacements ({@code MPI_Alltoallw}). */
    public final void allToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                                Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        collectives().allToAllw("Comm.allToAllw", false, sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls, recvTypes);
    }

    public final Request iAllToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                                    Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        return collectives().allToAllw("Comm.iAllToAllw", true, sendBuf, sendCount, sDispls, sendTypes, recvBuf, recvCount, rDispls, recvTypes);
    }

    public final void neighborAllGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        neighbors().allGather("Comm.neighborAllGather", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    public final Request iNeighborAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        return neighbors().allGather("Comm.iNeighborAllGather", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    public final void neighborAllGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount, int[] displs,
                                         Datatype recvtype) throws MPIException {
        neighbors().allGatherv("Comm.neighborAllGatherv", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
                recvtype);
    }

    public final Request iNeighborAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int[] recvcount, int[] displs,
                                             Datatype recvtype) throws MPIException {
        return neighbors().allGatherv("Comm.iNeighborAllGatherv", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
                recvtype);
    }

    public final void neighborAllToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        neighbors().allToAll("Comm.neighborAllToAll", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    public final Request iNeighborAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        return neighbors().allToAll("Comm.iNeighborAllToAll", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }

    public final void neighborAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                        Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        neighbors().allToAllv("Comm.neighborAllToAllv", false, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls,
                recvtype);
    }

    public final Request iNeighborAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                                            Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        return neighbors().allToAllv("Comm.iNeighborAllToAllv", true, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount,
                rdispls, recvtype);
    }

    /** Combines every rank's data with {@code op}, in rank order, at the root ({@code MPI_Reduce}). */
    public final void reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root) throws MPIException {
        collectives().reduce("Comm.reduce", false, sendbuf, recvbuf, count, type, op, root);
    }

    /** {@link #reduce} in place: the root's contribution is in {@code buf}, and the result goes there. */
    public final void reduce(Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        collectives().reduceInPlace("Comm.reduce", false, buf, count, type, op, root);
    }

    public final Request iReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op, int root) throws MPIException {
        return collectives().reduce("Comm.iReduce", true, sendbuf, recvbuf, count, type, op, root);
    }

    public final Request iReduce(Buffer buf, int count, Datatype type, Op op, int root) throws MPIException {
        return collectives().reduceInPlace("Comm.iReduce", true, buf, count, type, op, root);
    }

    /** {@link #reduce} with the result on every rank ({@code MPI_Allreduce}). */
    public final void allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        collectives().allReduce("Comm.allReduce", false, sendbuf, recvbuf, count, type, op);
    }

    /** {@link #allReduce} in place. */
    public final void allReduce(Object buf, int count, Datatype type, Op op) throws MPIException {
        collectives().allReduce("Comm.allReduce", false, null, buf, count, type, op);
    }

    /** Non-blocking {@link #allReduce} ({@code MPI_Iallreduce}). */
    public final Request iAllReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        return collectives().allReduce("Comm.iAllReduce", true, sendbuf, recvbuf, count, type, op);
    }

    /** Non-blocking {@link #allReduce} in place. */
    public final Request iAllReduce(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return collectives().allReduce("Comm.iAllReduce", true, null, buf, count, type, op);
    }

    /** Reduces, then scatters block i of {@code recvcounts[i]} elements to rank i ({@code MPI_Reduce_scatter}). */
    public final void reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op) throws MPIException {
        collectives().reduceScatter("Comm.reduceScatter", false, sendbuf, recvbuf, recvcounts, type, op);
    }

    /** {@link #reduceScatter} in place. */
    public final void reduceScatter(Object buf, int[] counts, Datatype type, Op op) throws MPIException {
        collectives().reduceScatter("Comm.reduceScatter", false, null, buf, counts, type, op);
    }

    public final Request iReduceScatter(Buffer sendbuf, Buffer recvbuf, int[] recvcounts, Datatype type, Op op) throws MPIException {
        return collectives().reduceScatter("Comm.iReduceScatter", true, sendbuf, recvbuf, recvcounts, type, op);
    }

    public final Request iReduceScatter(Buffer buf, int[] counts, Datatype type, Op op) throws MPIException {
        return collectives().reduceScatter("Comm.iReduceScatter", true, null, buf, counts, type, op);
    }

    /** {@link #reduceScatter} with equal blocks ({@code MPI_Reduce_scatter_block}). */
    public final void reduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op) throws MPIException {
        collectives().reduceScatterBlock("Comm.reduceScatterBlock", false, sendbuf, recvbuf, recvcount, type, op);
    }

    /** {@link #reduceScatterBlock} in place. */
    public final void reduceScatterBlock(Object buf, int count, Datatype type, Op op) throws MPIException {
        collectives().reduceScatterBlock("Comm.reduceScatterBlock", false, null, buf, count, type, op);
    }

    public final Request iReduceScatterBlock(Buffer sendbuf, Buffer recvbuf, int recvcount, Datatype type, Op op) throws MPIException {
        return collectives().reduceScatterBlock("Comm.iReduceScatterBlock", true, sendbuf, recvbuf, recvcount, type, op);
    }

    public final Request iReduceScatterBlock(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return collectives().reduceScatterBlock("Comm.iReduceScatterBlock", true, null, buf, count, type, op);
    }

    /** {@code inOutBuf[i] = inBuf[i] op inOutBuf[i]} on this rank ({@code MPI_Reduce_local}). */
    public static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type, Op op) throws MPIException {
        MPI.check();
        Collectives.reduceLocal(inBuf, inOutBuf, count, type, op);
    }

    /** Names the communicator ({@code MPI_Comm_set_name}). */
    public final void setName(String name) throws MPIException {
        live("Comm.setName");
        this.name = name;
    }

    /** The communicator's name ({@code MPI_Comm_get_name}). */
    public final String getName() throws MPIException {
        live("Comm.getName");
        return name;
    }

    final Collectives collectives() {
        return new Collectives(this);
    }

    private NeighborCollectives neighbors() {
        return new NeighborCollectives(this);
    }

    @Override
    public String toString() {
        return name;
    }
}
