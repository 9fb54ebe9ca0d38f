/**
 * Lockstep's application API: communicators, requests, statuses, datatypes, reduction operations,
 * errors, and the bootstrap that finds a provider.
 */
module org.lockstep.api {
    exports org.lockstep.api;

    uses org.lockstep.api.LockstepProvider;
}
