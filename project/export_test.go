package project

// SetReadAheadInOrder sets aheadInOrder (ahead.go) and returns a function that
// sets it back.
func SetReadAheadInOrder(on bool) (restore func()) {
	old := aheadInOrder
	aheadInOrder = on
	return func() { aheadInOrder = old }
}
