solution status: infeasible
no solution available
