/**
 * The Lockstep TCK: the kit a third party runs against its provider or device (runner,
 * configuration, compatibility report as Markdown, HTML and JUnit XML, certification mode), and
 * its self-test against deliberately broken providers and devices built with Byte Buddy.
 */
module org.lockstep.tck {
    requires transitive org.lockstep.conformance;
    requires net.bytebuddy;
    requires info.picocli;

    exports org.lockstep.tck;
    exports org.lockstep.tck.report;

    uses org.lockstep.api.LockstepProvider;

    // picocli sets the command line's option fields reflectively.
    opens org.lockstep.tck to info.picocli;
}
