// Package satjob is the layer the SAT formulation packages (satodt,
// satodd, avellaneda, dt1) stand on, as encode/milpjob is for the MILP
// forms; each formulation package holds its formula and its search, and
// takes the rest from here:
//
//   - the data as a formula sees it: Prepared, the rows grouped by
//     their values on the kept tests with their weight per class (the
//     error objectives of sat-odt and sat-odd), and Examples, one row per
//     distinct vector of the kept tests (the trees with no training error
//     of sat-depth, sat-size and sat-dt1);
//   - the options every SAT backend shares (Options: the SAT solver and
//     the certificate, declared by SolverParam and CertifyParams);
//   - sizes: CNFSize and GuardedSize estimate a formula before it is
//     built, Indexable refuses one no solver indexes, and a Guard holds a
//     growing formula to its context and memory budget;
//   - solving: Open and Load give a solver its formula, Close releases
//     it, and a Descent searches for the least cost on one incremental
//     solver, part by part, keeping the refutation that proves it;
//   - certificates: Start and Conclude around a solve write and check
//     one (Index states its problem and claim), and Check re-derives one
//     from the data alone: it reads the data, builds every formula again
//     through the backend's encoder (Reencoder), refuses a stored formula
//     with a clause the encoder does not make, checks the proofs, takes
//     the meaning of each refutation's assumptions from the encoder and
//     derives the bound it prints.
//
// Package sat stays a generic SAT layer that knows nothing of models.
package satjob
