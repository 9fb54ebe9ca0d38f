package org.lockstep.mpiprograms;

import mpi.Comm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Win;

/** dup, iDup, split, splitType, create, createGroup, compare, groups and their algebra, names and attributes, COMM_SELF. */
public final class Communicators {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        Intracomm copy = world.dup();
        Check.equal(MPI.CONGRUENT, Comm.compare(world, copy), "a duplicate is congruent");
        Check.equal(MPI.IDENT, Comm.compare(world, world), "a communicator is identical to itself");
        // messages on the copy do not match receives on the world
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        java.nio.IntBuffer onCopy = MPI.newIntBuffer(1);
        int[] onWorld = new int[1];
        mpi.Request r1 = copy.iRecv(onCopy, 1, MPI.INT, prev, 0); // posted first: a leaky context would match the world's message
        world.sendRecv(new int[] {rank}, 1, MPI.INT, next, 0, onWorld, 1, MPI.INT, prev, 0);
        copy.send(new int[] {-rank}, 1, MPI.INT, next, 0);
        r1.waitFor();
        Check.equal(prev, onWorld[0], "the world's message arrived on the world");
        Check.equal(-prev, onCopy.get(0), "the copy's message arrived on the copy");

        // split in two halves by parity, ordered by descending rank
        Intracomm half = world.split(rank % 2, -rank);
        int expectedSize = (size + 1 - rank % 2) / 2;
        Check.equal(expectedSize, half.getSize(), "half size");
        Group halfGroup = half.getGroup();
        int[] worldRanks = Group.translateRanks(halfGroup, new int[] {0}, world.getGroup());
        int highest = rank % 2 == 0 ? (size - 1) / 2 * 2 : (size % 2 == 0 ? size - 1 : size - 2);
        Check.equal(highest, worldRanks[0], "key order puts the highest world rank first");
        Check.equal(MPI.UNEQUAL, size > 1 ? Comm.compare(world, half) : MPI.UNEQUAL, "a half is unequal to the world");
        int[] sum = new int[1];
        half.allReduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM);
        int expectedSum = 0;
        for (int r = rank % 2; r < size; r += 2) {
            expectedSum += r;
        }
        Check.equal(expectedSum, sum[0], "a collective on the half");

        Intracomm none = world.split(rank == 0 ? MPI.UNDEFINED : 1, 0);
        Check.that(rank == 0 ? none.isNull() : !none.isNull(), "UNDEFINED gives a null communicator");

        // group algebra and create
        Group all = world.getGroup();
        Check.equal(size, all.getSize(), "world group size");
        Check.equal(rank, all.getRank(), "world group rank");
        Group evens = all.rangeIncl(new int[][] {{0, size - 1, 2}});
        Group odds = all.excl(rangeOf(0, size - 1, 2));
        Check.equal(size, Group.union(evens, odds).getSize(), "union");
        Check.equal(0, Group.intersection(evens, odds).getSize(), "intersection");
        Check.equal(MPI.SIMILAR, size > 1 ? Group.compare(Group.union(odds, evens), all) : MPI.SIMILAR, "the same members in another order are similar");
        Check.equal(MPI.IDENT, Group.compare(Group.difference(all, MPI.GROUP_EMPTY), all), "difference with the empty group");
        Group reversed = all.incl(reverse(size));
        Intracomm backwards = world.create(reversed);
        Check.equal(size - 1 - rank, backwards.getRank(), "create orders ranks as the group does");
        Intracomm evensOnly = world.create(evens);
        Check.that(rank % 2 == 0 ? !evensOnly.isNull() : evensOnly.isNull(), "create gives members only a communicator");

        // createGroup: only the members of the group call it
        if (rank % 2 == 1) {
            Intracomm oddsOnly = world.createGroup(odds, 7);
            Check.equal(odds.getSize(), oddsOnly.getSize(), "createGroup size");
            Check.equal(rank / 2, oddsOnly.getRank(), "createGroup orders ranks as the group does");
            int[] oddSum = new int[1];
            oddsOnly.allReduce(new int[] {rank}, oddSum, 1, MPI.INT, MPI.SUM);
            int expectedOddSum = 0;
            for (int r = 1; r < size; r += 2) {
                expectedOddSum += r;
            }
            Check.equal(expectedOddSum, oddSum[0], "a collective on createGroup's communicator");
            oddsOnly.free();
        }

        // splitType: the ranks that share memory (on one device the whole job; EM-BSP's VPs share
        // none, so each is alone), ordered by the key; each such group can allocate a shared window
        Intracomm shared = world.splitType(Comm.TYPE_SHARED, -rank, new mpi.Info());
        int[] members = new int[shared.getSize()];
        shared.allGather(new int[] {rank}, 1, MPI.INT, members, 1, MPI.INT);
        Check.equal(rank, members[shared.getRank()], "a rank's place in its shared communicator");
        for (int i = 1; i < members.length; i++) {
            Check.that(members[i - 1] > members[i], "splitType orders by key: " + java.util.Arrays.toString(members));
        }
        Win sharedWindow = new Win(4, 1, MPI.INFO_NULL, shared, MPI.newIntBuffer(4), Win.FLAVOR_SHARED);
        sharedWindow.free();
        shared.free();

        // iDup: the copy is usable once its request completes
        Intracomm later = world.iDup();
        later.getRequest().waitFor();
        int[] viaCopy = new int[1];
        later.allReduce(new int[] {1}, viaCopy, 1, MPI.INT, MPI.SUM);
        Check.equal(size, viaCopy[0], "a collective on an iDup copy");
        Check.equal(MPI.CONGRUENT, Comm.compare(world, later), "an iDup copy is congruent");
        later.free();

        // names, attributes, COMM_SELF
        Check.that("MPI_COMM_WORLD".equals(world.getName()), "world's name: " + world.getName());
        copy.setName("copy");
        Check.that("copy".equals(copy.getName()), "a name set");
        int key = Comm.createKeyval();
        copy.setAttr(key, "value of " + rank);
        Check.that(("value of " + rank).equals(copy.getAttr(key)), "an attribute set");
        Intracomm copyOfCopy = copy.dup();
        Check.that(("value of " + rank).equals(copyOfCopy.getAttr(key)), "dup copies attributes");
        copy.deleteAttr(key);
        Check.that(copy.getAttr(key) == null, "a deleted attribute");
        Comm.freeKeyval(key);
        int held = Comm.createKeyval();
        copy.setAttr(held, rank);
        Comm.freeKeyval(held);
        Check.that(Integer.valueOf(rank).equals(copy.getAttr(held)), "a freed key stays usable where a value holds it");
        Check.that(Comm.createKeyval() != held, "a freed key in use is not handed out again");
        Check.that(((Integer) world.getAttr(MPI.TAG_UB)) >= 32767, "TAG_UB is at least 32767");
        Check.equal(1, MPI.COMM_SELF.getSize(), "self size");
        Check.equal(0, MPI.COMM_SELF.getRank(), "self rank");
        int[] selfValue = {rank};
        MPI.COMM_SELF.bcast(selfValue, 1, MPI.INT, 0);
        Check.equal(rank, selfValue[0], "a collective on self");

        // hints: kept by the communicator, passed on by dup, replaced by dupWithInfo
        mpi.Info hints = new mpi.Info();
        hints.set("mpi_assert_no_any_tag", "true");
        copy.setInfo(hints);
        hints.set("mpi_assert_no_any_tag", "false"); // the communicator took a copy
        Check.that("true".equals(copy.getInfo().get("mpi_assert_no_any_tag")), "a hint set");
        Intracomm inheriting = copy.dup();
        Check.that("true".equals(inheriting.getInfo().get("mpi_assert_no_any_tag")), "dup passes the hints on");
        Intracomm replaced = copy.dupWithInfo(new mpi.Info());
        Check.equal(0, replaced.getInfo().size(), "dupWithInfo replaces the hints");
        inheriting.free();
        replaced.free();

        copyOfCopy.free();
        Check.that(copyOfCopy.isNull(), "a freed communicator is null");
        copy.free();
        half.free();
        Check.passed("communicators");
        MPI.Finalize();
    }

    private static int[] rangeOf(int first, int last, int stride) {
        return java.util.stream.IntStream.iterate(first, i -> i <= last, i -> i + stride).toArray();
    }

    private static int[] reverse(int size) {
        int[] r = new int[size];
        for (int i = 0; i < size; i++) {
            r[i] = size - 1 - i;
        }
        return r;
    }
}
