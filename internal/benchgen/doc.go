// Package benchgen writes the Rojo project the benchmarks run on, the budget
// project of ARCHITECTURE §8 (10,000 scripts of about 4 KB), committed in a git
// repository of its own.
package benchgen
