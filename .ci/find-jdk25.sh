# shellcheck shell=bash
# Sourced by .ci/run and ./lockstep: finds a JDK 25 or newer and exports JAVA_HOME and PATH.
# Order: $JAVA_HOME if its java is new enough, else the first $LOCKSTEP_JVM_DIR/*25* (default /usr/lib/jvm) whose bin/java is.

LOCKSTEP_REQUIRED_JAVA=25
# Where JDKs are installed (overridable so the "none found" path can be tried).
LOCKSTEP_JVM_DIR=${LOCKSTEP_JVM_DIR:-/usr/lib/jvm}

# Prints the feature version (8, 17, 25, ...) of the java in JDK directory $1, or nothing.
lockstep_java_feature_version() {
    local version
    version=$("$1/bin/java" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1)
    version=${version#1.}          # 1.8.0_402 -> 8.0_402
    printf '%s\n' "${version%%[.+_-]*}"
}

lockstep_is_jdk25() {
    local dir=$1 feature
    [ -n "$dir" ] && [ -x "$dir/bin/java" ] || return 1
    feature=$(lockstep_java_feature_version "$dir")
    [[ $feature =~ ^[0-9]+$ ]] && [ "$feature" -ge "$LOCKSTEP_REQUIRED_JAVA" ]
}

# Exports JAVA_HOME and PATH for a JDK 25, or prints why there is none and returns 1.
lockstep_use_jdk25() {
    local candidate
    if lockstep_is_jdk25 "${JAVA_HOME:-}"; then
        candidate=$JAVA_HOME
    else
        for dir in "$LOCKSTEP_JVM_DIR"/*"$LOCKSTEP_REQUIRED_JAVA"*; do
            if lockstep_is_jdk25 "$dir"; then
                candidate=$dir
                break
            fi
        done
    fi
    if [ -z "${candidate:-}" ]; then
        {
            echo "error: Lockstep needs JDK $LOCKSTEP_REQUIRED_JAVA or newer."
            if [ -n "${JAVA_HOME:-}" ]; then
                echo "  JAVA_HOME=$JAVA_HOME is $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1 || echo 'not a JDK')"
            else
                echo "  JAVA_HOME is not set"
            fi
            echo "  and no $LOCKSTEP_JVM_DIR/*$LOCKSTEP_REQUIRED_JAVA* directory has a JDK $LOCKSTEP_REQUIRED_JAVA bin/java."
            echo "  Install a JDK $LOCKSTEP_REQUIRED_JAVA and point JAVA_HOME at it."
        } >&2
        return 1
    fi
    JAVA_HOME=$(cd "$candidate" && pwd -P)
    PATH="$JAVA_HOME/bin:$PATH"
    export JAVA_HOME PATH
}
