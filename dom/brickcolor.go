package dom

// brickColorNumbers are the BrickColor numbers Roblox defines; any other number is invalid.
var brickColorNumbers = func() map[uint16]bool {
	m := map[uint16]bool{}
	add := func(lo, hi uint16) {
		for n := lo; n <= hi; n++ {
			m[n] = true
		}
	}
	for _, n := range []uint16{1, 2, 3, 5, 6, 9, 11, 12, 18, 47, 48, 49, 50,
		110, 111, 112, 113, 115, 116, 118, 119, 120, 121, 123, 124, 125, 126, 127, 128,
		131, 133, 134, 135, 136, 137, 138, 140, 141, 143, 145, 146, 147, 148, 149, 150,
		151, 153, 154, 157, 158, 168, 176, 178, 179, 180, 190, 191, 192, 193, 194, 195,
		196, 198, 199, 200, 208, 209, 210, 211, 212, 213, 216, 217, 218, 219, 220, 221,
		222, 223, 224, 225, 226, 232, 268} {
		m[n] = true
	}
	add(21, 29)
	add(36, 45)
	add(100, 108)
	add(301, 325)
	add(327, 365)
	add(1001, 1032)
	return m
}()

// ValidBrickColor reports whether n is a BrickColor number Roblox defines.
func ValidBrickColor(n uint16) bool { return brickColorNumbers[n] }
