/**
 * Flight Recorder events of every provider ({@code jdk.jfr}): collective calls with the algorithm
 * the provider chose, and message matching. Their names start with {@code org.lockstep.}; record a
 * job with {@code lockstep run --jfr FILE} and read it with {@code jfr print --events
 * org.lockstep.Collective FILE}.
 */
package org.lockstep.spi.events;
