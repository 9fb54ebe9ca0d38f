package mpi;

import java.util.ArrayList;
import java.util.List;

/** {@code MPI_Dims_create}: a balanced factorisation of a number of ranks into dimensions. */
final class Dims {
    private Dims() {
    }

    static void create(int nnodes, int[] dims) throws MPIException {
        if (nnodes < 1) {
            throw ErrorClasses.argument(ErrorClasses.DIMS, "CartComm.createDims", "the number of nodes must be positive, got " + nnodes);
        }
        int fixed = 1;
        int free = 0;
        for (int d : dims) {
            if (d < 0) {
                throw ErrorClasses.argument(ErrorClasses.DIMS, "CartComm.createDims", "a dimension cannot be negative: " + d);
            }
            if (d == 0) {
                free++;
            } else {
                fixed *= d;
            }
        }
        if (nnodes % fixed != 0) {
            throw ErrorClasses.argument(ErrorClasses.DIMS, "CartComm.createDims", nnodes + " nodes cannot fill dimensions whose product is " + fixed);
        }
        if (free == 0) {
            if (fixed != nnodes) {
                throw ErrorClasses.argument(ErrorClasses.DIMS, "CartComm.createDims", "the dimensions' product " + fixed + " is not " + nnodes);
            }
            return;
        }
        int[] sizes = new int[free];
        java.util.Arrays.fill(sizes, 1);
        // Each prime factor, largest first, goes to the dimension that is smallest so far.
        List<Integer> factors = primeFactors(nnodes / fixed);
        for (int i = factors.size() - 1; i >= 0; i--) {
            int smallest = 0;
            for (int j = 1; j < free; j++) {
                if (sizes[j] < sizes[smallest]) {
                    smallest = j;
                }
            }
            sizes[smallest] *= factors.get(i);
        }
        java.util.Arrays.sort(sizes);
        int next = free - 1;
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] == 0) {
                dims[i] = sizes[next--];
            }
        }
    }

    private static List<Integer> primeFactors(int n) {
        List<Integer> factors = new ArrayList<>();
        for (int p = 2; (long) p * p <= n; p++) {
            while (n % p == 0) {
                factors.add(p);
                n /= p;
            }
        }
        if (n > 1) {
            factors.add(n);
        }
        return factors;
    }
}
