// Package plan computes the changes between the disk tree D, the Studio snapshot S
// and the base tree B with the three-way decision table (ARCHITECTURE §4), and the
// canonical plan hash that binds a confirm token to them. It is pure: no I/O.
package plan
