package rbxbin

import (
	"errors"
	"math"
	"unicode/utf8"
)

var errShort = errors.New("data ends early")

// reader reads one chunk's data. After the first failed read every read returns
// zero values and err is set, so decoding code checks err once per step.
type reader struct {
	buf []byte
	pos int
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) left() int { return len(r.buf) - r.pos }

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || r.left() < n {
		r.fail(errShort)
		return nil
	}
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) u8() byte {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *reader) u16() uint16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return le.Uint16(b)
}

func (r *reader) u32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return le.Uint32(b)
}

func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

func (r *reader) f64() float64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(le.Uint64(b))
}

// count reads a u32 count of items of at least size bytes each, failing when the
// rest of the chunk cannot hold them (so a corrupt count allocates nothing).
func (r *reader) count(size int) int {
	n := r.u32()
	if r.err != nil {
		return 0
	}
	if size < 1 {
		size = 1
	}
	if uint64(n)*uint64(size) > uint64(r.left()) {
		r.fail(errors.New("a count is larger than the data that follows"))
		return 0
	}
	return int(n)
}

func (r *reader) bytes() []byte {
	n := r.count(1)
	return r.take(n)
}

func (r *reader) str() string { return string(r.bytes()) }

// columns reads n interleaved values of width bytes and returns them row by row.
func (r *reader) columns(n, width int) []byte {
	if n < 0 || r.left()/width < n {
		r.fail(errShort)
		return nil
	}
	src := r.take(n * width)
	if src == nil {
		return nil
	}
	out := make([]byte, len(src))
	deinterleave(out, src, width)
	return out
}

// u32s reads an interleaved array of big-endian u32s.
func (r *reader) u32s(n int) []uint32 {
	b := r.columns(n, 4)
	if b == nil {
		return nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = be.Uint32(b[4*i:])
	}
	return out
}

// i32s reads an interleaved array of transformed big-endian i32s.
func (r *reader) i32s(n int) []int32 {
	u := r.u32s(n)
	if u == nil {
		return nil
	}
	out := make([]int32, n)
	for i, v := range u {
		out[i] = decodeZigzag32(v)
	}
	return out
}

// f32s reads an interleaved array of big-endian Roblox floats.
func (r *reader) f32s(n int) []float32 {
	u := r.u32s(n)
	if u == nil {
		return nil
	}
	out := make([]float32, n)
	for i, v := range u {
		out[i] = decodeRobloxFloat(v)
	}
	return out
}

// i64s reads an interleaved array of transformed big-endian i64s.
func (r *reader) i64s(n int) []int64 {
	b := r.columns(n, 8)
	if b == nil {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = decodeZigzag64(be.Uint64(b[8*i:]))
	}
	return out
}

// refs reads an array of referents: transformed i32s, each stored as the
// difference from the one before.
func (r *reader) refs(n int) []int32 {
	out := r.i32s(n)
	for i := 1; i < len(out); i++ {
		out[i] += out[i-1]
	}
	return out
}

func validUTF8(b []byte) bool { return utf8.Valid(b) }
