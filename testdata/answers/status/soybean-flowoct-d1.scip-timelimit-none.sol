solution status: time limit reached
no solution available
