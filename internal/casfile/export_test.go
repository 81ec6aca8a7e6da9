package casfile

// Step is a point in a swap where a test hook runs.
type Step = step

// The steps, in order.
const (
	StepStaged    = stepStaged
	StepAside     = stepAside
	StepVerified  = stepVerified
	StepInstalled = stepInstalled
)

// SetHook makes h run after each step of every swap on r; an error from h stops
// the swap there, as a crash would, and is returned.
func (r *Root) SetHook(h func(Step) error) { r.hook = h }

// TempName is the staged (".new") or aside (".pre") file name of base for tag.
func TempName(base, tag, suffix string) string { return tempName(base, tag, suffix) }
