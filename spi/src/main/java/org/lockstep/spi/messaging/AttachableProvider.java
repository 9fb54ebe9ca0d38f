package org.lockstep.spi.messaging;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;

/**
 * A provider whose transport another provider can build on: it joins this process, as one rank,
 * to the world a {@link LaunchEnvironment} describes and hands back the membership, instead of
 * running a program on it. The hybrid provider finds the mailbox transport by name this way and
 * runs it among the ranks of one host, without depending on its module.
 */
public interface AttachableProvider {
    /**
     * Joins this process to {@code launch}'s world (its rank, size, device and job key), with
     * {@code options} (whose rank count is {@code launch.size()}).
     */
    AttachedRank attach(JobOptions options, LaunchEnvironment launch);
}
