package org.lockstep.conformance.scenario;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.Status;
import org.lockstep.conformance.run.LaunchedWorld;

/**
 * A scenario's records under a launcher ({@link LaunchedWorld}): each process holds only what its
 * rank did, and the checks need every rank's, so each process sends its records to all the others
 * (times are {@code System.nanoTime}, one clock for the processes of a host). The encoding is this
 * class's alone; a receive's step is named by its rank and index in the scenario.
 */
final class GatheredRecords {
    private GatheredRecords() {
    }

    /** Everyone's records, from this process's. Collective over the job. */
    static Records allGather(LaunchedWorld world, Scenario scenario, Records mine) {
        Records all = new Records(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (byte[] each : world.allGather(encode(mine))) {
            Records theirs = decode(scenario, each);
            all.sends().addAll(theirs.sends());
            all.receives().addAll(theirs.receives());
            all.cancels().addAll(theirs.cancels());
        }
        return all;
    }

    /** One process's records. */
    record Records(List<ScenarioRecord.SendRecord> sends, List<ScenarioRecord.ReceiveRecord> receives,
                   List<ScenarioRecord.CancelRecord> cancels) {
    }

    private static byte[] encode(Records r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(r.sends().size());
            for (ScenarioRecord.SendRecord s : r.sends()) {
                out.writeInt(s.message());
                out.writeLong(s.startNanos());
                out.writeLong(s.completedNanos());
                out.writeBoolean(s.completedAtOnce());
            }
            out.writeInt(r.receives().size());
            for (ScenarioRecord.ReceiveRecord v : r.receives()) {
                out.writeInt(v.rank());
                out.writeInt(v.step().index());
                writeSpec(out, v.spec());
                out.writeBoolean(v.probed().isPresent());
                if (v.probed().isPresent()) {
                    writeStatus(out, v.probed().get());
                }
                writeStatus(out, v.status());
                out.writeBoolean(v.truncated());
                out.writeLong(v.messageBytes());
                out.writeInt(v.data().length);
                out.write(v.data());
                out.writeLong(v.untouchedFrom());
                out.writeLong(v.postNanos());
                out.writeLong(v.completeNanos());
            }
            out.writeInt(r.cancels().size());
            for (ScenarioRecord.CancelRecord c : r.cancels()) {
                out.writeInt(c.rank());
                writeSpec(out, c.spec());
                out.writeBoolean(c.status() != null);
                if (c.status() != null) {
                    writeStatus(out, c.status());
                }
                out.writeBoolean(c.error() != null);
                if (c.error() != null) {
                    out.writeUTF(c.error());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static Records decode(Scenario scenario, byte[] data) {
        Records r = new Records(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            for (int n = in.readInt(); n > 0; n--) {
                r.sends().add(new ScenarioRecord.SendRecord(in.readInt(), in.readLong(), in.readLong(), in.readBoolean()));
            }
            for (int n = in.readInt(); n > 0; n--) {
                int rank = in.readInt();
                Step.Receive step = receiveStep(scenario, rank, in.readInt());
                ReceiveSpec spec = readSpec(in);
                Optional<Status> probed = in.readBoolean() ? Optional.of(readStatus(in)) : Optional.empty();
                Status status = readStatus(in);
                boolean truncated = in.readBoolean();
                long messageBytes = in.readLong();
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                r.receives().add(new ScenarioRecord.ReceiveRecord(rank, step, spec, probed, status, truncated, messageBytes, bytes,
                        in.readLong(), in.readLong(), in.readLong()));
            }
            for (int n = in.readInt(); n > 0; n--) {
                int rank = in.readInt();
                ReceiveSpec spec = readSpec(in);
                Status status = in.readBoolean() ? readStatus(in) : null;
                String error = in.readBoolean() ? in.readUTF() : null;
                r.cancels().add(new ScenarioRecord.CancelRecord(rank, spec, status, error));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return r;
    }

    private static Step.Receive receiveStep(Scenario scenario, int rank, int index) {
        for (Step s : scenario.programs().get(rank)) {
            if (s instanceof Step.Receive receive && receive.index() == index) {
                return receive;
            }
        }
        throw new IllegalStateException("rank " + rank + " of the scenario has no receive #" + index);
    }

    private static void writeSpec(DataOutputStream out, ReceiveSpec spec) throws IOException {
        out.writeInt(spec.source());
        out.writeInt(spec.tag());
    }

    private static ReceiveSpec readSpec(DataInputStream in) throws IOException {
        return new ReceiveSpec(in.readInt(), in.readInt());
    }

    private static void writeStatus(DataOutputStream out, Status s) throws IOException {
        out.writeInt(s.source());
        out.writeInt(s.tag());
        out.writeLong(s.byteCount());
        out.writeBoolean(s.cancelled());
        out.writeInt(s.error() == null ? -1 : s.error().ordinal());
    }

    private static Status readStatus(DataInputStream in) throws IOException {
        int source = in.readInt();
        int tag = in.readInt();
        long bytes = in.readLong();
        boolean cancelled = in.readBoolean();
        int error = in.readInt();
        return new Status(source, tag, bytes, cancelled, error < 0 ? null : ErrorClass.values()[error]);
    }
}
