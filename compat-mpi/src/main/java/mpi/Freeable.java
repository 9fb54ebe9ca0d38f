package mpi;

/** An MPI object that holds resources until it is freed. */
public interface Freeable {
    /** Releases the object; later use of it is an error. */
    void free() throws MPIException;
}
