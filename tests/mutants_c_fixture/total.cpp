// The program tests/test_mutants_c.py mutates: a loop, a comparison, a sum.
#include <iostream>

int total(int n) {
    int sum = 0;
    for (int i = 1; i < n; i++) {
        sum += i;
    }
    return sum;
}

int main() {
    std::cout << total(5) << "\n";
    return 0;
}
