// Package apply is the apply transaction (ARCHITECTURE §5): verify the confirm token,
// recompute the plan, check overrides and preconditions, journal pre-images, stage
// disk writes, patch Studio with preconditions, then commit disk — both or neither.
// It also finishes or rolls back a transaction a crashed host left behind.
package apply
