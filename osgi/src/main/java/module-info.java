/**
 * Lockstep in an OSGi container: {@link org.lockstep.osgi.ConfiguredProvider}, a Declarative
 * Services component that offers a provider, chosen and configured through Configuration Admin, as
 * an {@code org.lockstep.api.LockstepProvider} service. Outside OSGi the module is inert.
 */
module org.lockstep.osgi {
    requires org.lockstep.api;
    // DS annotations are read by bnd when the jar is built; nothing needs them at run time
    requires static org.osgi.service.component.annotations;
}
