package org.lockstep.pcie.mailbox;

/**
 * A logged message a rank sent, as its log holds it ({@link org.lockstep.pcie.layout.LoggedBlockDescriptor}),
 * retained until its receiver has checkpointed past it; {@code directoryIndex} is -1 for a log ring block.
 */
record LoggedMessage(int dest, long sequence, long block, long blockLength, long directoryIndex, int tag, int context,
                     long length, long messageLength, int flags) {
}
