package dom

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func TestEqual(t *testing.T) {
	nan := math.NaN()
	rot := CFrame{Position: [3]float32{1, 2, 3}, Orientation: [3][3]float32{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}}
	rotNear := rot
	rotNear.Position[2] += 5e-5
	rotNear.Orientation[1][0] -= 5e-5
	rotFar := rot
	rotFar.Orientation[2][2] += 2e-4
	rotT := rot // the transpose: the same numbers in other places
	rotT.Orientation = [3][3]float32{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}

	tests := []struct {
		name string
		a, b Value
		want bool
	}{
		{"nil nil", nil, nil, true},
		{"nil value", nil, Bool(false), false},
		{"value nil", Float32(0), nil, false},

		{"Float32 same", Float32(0.5), Float32(0.5), true},
		{"Float32 9e-5 apart", Float32(1), Float32(1.00009), true},
		{"Float32 5e-5 apart", Float32(0.25), Float32(0.25005), true},
		{"Float32 2e-4 apart", Float32(1), Float32(1.0002), false},
		{"Float32 negative 2e-4 apart", Float32(-3), Float32(-3.0002), false},
		{"Float64 5e-5 apart", Float64(100), Float64(100.00005), true},
		{"Float64 2e-4 apart", Float64(100), Float64(100.0002), false},
		{"Float64 NaN", Float64(nan), Float64(nan), true},
		{"Float64 NaN and 0", Float64(nan), Float64(0), false},
		{"Float64 infinities", Float64(math.Inf(1)), Float64(math.Inf(1)), true},
		{"Float64 opposite infinities", Float64(math.Inf(1)), Float64(math.Inf(-1)), false},

		{"Float32 vs Float64", Float32(1), Float64(1), false},
		{"Int32 vs Int64", Int32(1), Int64(1), false},
		{"Int32 vs Float32", Int32(1), Float32(1), false},
		{"Vector3 vs Color3", Vector3{1, 0, 0}, Color3{1, 0, 0}, false},
		{"String vs ContentId", String("rbxassetid://1"), ContentId("rbxassetid://1"), false},
		{"Enum vs Int32", Enum(1), Int32(1), false},
		{"BinaryString vs SharedString", BinaryString("x"), SharedString("x"), false},
		{"Tags vs Faces", Tags{"Top"}, Faces{"Top"}, false},

		{"Bool", Bool(true), Bool(true), true},
		{"Bool differs", Bool(true), Bool(false), false},
		{"String", String("a"), String("a"), true},
		{"String case", String("a"), String("A"), false},
		{"Enum", Enum(288), Enum(288), true},
		{"Enum differs", Enum(288), Enum(256), false},
		{"Int32 differs by 1", Int32(7), Int32(8), false},
		{"Int64 above 2^53", Int64(1<<53 + 1), Int64(1 << 53), false},
		{"Int64 above 2^53 same", Int64(1<<53 + 1), Int64(1<<53 + 1), true},
		{"Int64 far above 2^53", Int64(math.MaxInt64), Int64(math.MaxInt64 - 1), false},
		{"Int64 below -2^53", Int64(-1<<53 - 1), Int64(-1 << 53), false},
		{"Int64 min", Int64(math.MinInt64), Int64(math.MinInt64 + 1), false},
		{"SecurityCapabilities", SecurityCapabilities(1<<60 + 1), SecurityCapabilities(1 << 60), false},
		{"SecurityCapabilities above 2^63", SecurityCapabilities(1<<63 | 1), SecurityCapabilities(1<<63 | 2), false},
		{"SecurityCapabilities max", SecurityCapabilities(math.MaxUint64), SecurityCapabilities(math.MaxUint64 - 1), false},
		{"SecurityCapabilities max same", SecurityCapabilities(math.MaxUint64), SecurityCapabilities(math.MaxUint64), true},
		{"BrickColor", BrickColor(194), BrickColor(199), false},

		{"Vector3 within", Vector3{1, 2, 3}, Vector3{1.00005, 1.99995, 3}, true},
		{"Vector3 x apart", Vector3{1, 2, 3}, Vector3{1.0002, 2, 3}, false},
		{"Vector3 y apart", Vector3{1, 2, 3}, Vector3{1, 2.0002, 3}, false},
		{"Vector3 z apart", Vector3{1, 2, 3}, Vector3{1, 2, 3.0002}, false},
		{"Vector2 within", Vector2{1, 2}, Vector2{1.00005, 2}, true},
		{"Vector2 apart", Vector2{1, 2}, Vector2{1, 2.0002}, false},
		{"Color3 within", Color3{1, 0.5, 0}, Color3{0.99995, 0.50005, 0.00005}, true},
		{"Color3 apart", Color3{1, 0.5, 0}, Color3{1, 0.5, 0.0002}, false},
		{"Color3 swapped", Color3{1, 0, 0}, Color3{0, 0, 1}, false},
		{"CFrame same", rot, rot, true},
		{"CFrame within", rot, rotNear, true},
		{"CFrame apart", rot, rotFar, false},
		{"CFrame transposed", rot, rotT, false},
		{"CFrame identity", IdentityCFrame, CFrame{Orientation: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, true},
		{"OptionalCFrame nil vs identity", OptionalCFrame{}, OptionalCFrame{CFrame: &IdentityCFrame}, false},
		{"OptionalCFrame within", OptionalCFrame{CFrame: &rot}, OptionalCFrame{CFrame: &rotNear}, true},
		{"UDim within", UDim{0.5, 8}, UDim{0.50005, 8}, true},
		{"UDim offset", UDim{0.5, 8}, UDim{0.5, 9}, false},
		{"UDim2 apart", UDim2{{1, 0}, {0, 36}}, UDim2{{1, 0}, {0.0002, 36}}, false},
		{"NumberSequence within", NumberSequence{{0, 1, 0}, {1, 0, 0}}, NumberSequence{{0, 1.00005, 0}, {1, 0, 0}}, true},
		{"NumberSequence length", NumberSequence{{0, 1, 0}, {1, 0, 0}}, NumberSequence{{0, 1, 0}}, false},
		{"Color3uint8", Color3uint8{255, 128, 0}, Color3uint8{255, 127, 0}, false},

		{"Tags same", Tags{"A", "B"}, Tags{"A", "B"}, true},
		{"Tags order", Tags{"A", "B"}, Tags{"B", "A"}, false},
		{"Tags duplicates", Tags{"A", "A"}, Tags{"A"}, false},
		{"Tags nil vs empty", Tags(nil), Tags{}, true},
		{"Faces order", Faces{"Top", "Front"}, Faces{"Front", "Top"}, false},

		{"Attributes same", Attributes{"Hp": Float64(100), "Team": String("Red")}, Attributes{"Team": String("Red"), "Hp": Float64(100)}, true},
		{"Attributes within", Attributes{"Hp": Float64(100)}, Attributes{"Hp": Float64(100.00005)}, true},
		{"Attributes apart", Attributes{"Hp": Float64(100)}, Attributes{"Hp": Float64(100.0002)}, false},
		{"Attributes value type", Attributes{"Hp": Float64(100)}, Attributes{"Hp": Float32(100)}, false},
		{"Attributes extra key", Attributes{"Hp": Float64(100)}, Attributes{"Hp": Float64(100), "X": Bool(true)}, false},
		{"Attributes renamed key", Attributes{"Hp": Float64(100)}, Attributes{"HP": Float64(100)}, false},
		{"Attributes empty", Attributes{}, Attributes(nil), true},
		{"Attributes NaN", Attributes{"x": Float64(nan)}, Attributes{"x": Float64(nan)}, true},
		{"Attributes NaN and 0", Attributes{"x": Float64(nan)}, Attributes{"x": Float64(0)}, false},
		{"Vector2 infinities", Vector2{float32(math.Inf(1)), 1}, Vector2{float32(math.Inf(1)), 1}, true},
		{"Vector2 infinity and max", Vector2{float32(math.Inf(1)), 1}, Vector2{math.MaxFloat32, 1}, false},

		{"Font same", Font{Family: "f", Weight: "Bold", Style: "Normal"}, Font{Family: "f", Weight: "Bold", Style: "Normal"}, true},
		{"Font cached face", Font{Family: "f", Weight: "Bold", Style: "Normal"}, Font{Family: "f", Weight: "Bold", Style: "Normal", CachedFaceID: ptr("x")}, false},
		{"Content None forms", Content{}, Content{Kind: "None"}, true},
		{"Content kind", Content{Kind: "Uri", Value: "x"}, Content{Kind: "Object", Value: "x"}, false},
		{"PhysicalProperties", PhysicalProperties{Default: true}, PhysicalProperties{}, false},
		{"MaterialColors", MaterialColors{"Grass": {1, 2, 3}}, MaterialColors{"Grass": {1, 2, 4}}, false},
		{"BinaryString", BinaryString{0, 1}, BinaryString{0, 1}, true},
		{"BinaryString differs", BinaryString{0, 1}, BinaryString{0, 2}, false},
		{"Ref", Ref("000000000000000000000000000000a1"), Ref("000000000000000000000000000000a2"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Equal(tt.b, tt.a); got != tt.want {
				t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestEqualJSON(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":[1,2]}`, `{"a":[1,2.00005]}`, true},
		{`{"a":[1,2]}`, `{"a":[1,2.0002]}`, false},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`[1,2]`, `[1,2,3]`, false},
		{`9007199254740993`, `9007199254740992`, false},
		{`-9007199254740993`, `-9007199254740992`, false},
		{`9223372036854775807`, `9223372036854775806`, false},
		{`18446744073709551615`, `18446744073709551614`, false},
		{`18446744073709551615`, `18446744073709551615`, true},
		{`1e2`, `100`, true},
		{`null`, `null`, true},
		{`{"a":null}`, `{"a":0}`, false},
		{`not json`, `not json`, false},
		{`{}`, `[]`, false},
		// Tagged values, as preconditions compare them (the fake plugin too).
		{`{"Vector3":[1,2,3]}`, `{"Vector3":[1.00009,2,2.99991]}`, true},
		{`{"Vector3":[1,2,3]}`, `{"Vector3":[1.0002,2,3]}`, false},
		{`{"Vector3":[1,2,3]}`, `{"Vector3":[1,2]}`, false},
		{`{"Float32":0.1}`, `{"Float64":0.1}`, false},
		{`{"Bool":true}`, `{"Bool":true}`, true},
		{`{"Bool":true}`, `{"Bool":false}`, false},
		{`{"String":"a"}`, `{"String":"a "}`, false},
		{`{"Enum":2}`, `{"Enum":2}`, true},
		{`{"CFrame":{"position":[0,5,0],"orientation":[[1,0,0],[0,1,0],[0,0,1]]}}`,
			`{"CFrame":{"orientation":[[1,0,0.00001],[0,1,0],[0,0,1]],"position":[0,5,0]}}`, true},
		{`{"OptionalCFrame":null}`, `{"OptionalCFrame":null}`, true},
		{`{"Enum":2}`, `not json`, false},
	}
	for _, tt := range tests {
		if got := EqualJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("EqualJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func BenchmarkEqualVector3(b *testing.B) {
	x, y := Value(Vector3{1, 2, 3}), Value(Vector3{1, 2, 3.00005})
	for b.Loop() {
		if !Equal(x, y) {
			b.Fatal("Equal(Vector3) = false")
		}
	}
}

// TestEqualFastPaths checks that Equal's per-type comparisons say what comparing the
// values' tagged JSON says, on random values near and far apart, with infinities and
// NaN among them.
func TestEqualFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := func() float32 {
		switch r.IntN(12) {
		case 0:
			return float32(math.Inf(1))
		case 1:
			return float32(math.Inf(-1))
		case 2:
			return float32(math.NaN())
		case 3:
			return 0
		}
		return float32(r.IntN(5)) + float32(r.IntN(3))*4e-5
	}
	// nudge returns v or a value a little (or not so little) away from it.
	nudge := func(v float32) float32 {
		switch r.IntN(4) {
		case 0:
			return v + 5e-5
		case 1:
			return v + 3e-4
		case 2:
			return f()
		}
		return v
	}
	i32 := func() int32 { return int32(r.IntN(3)) }
	pairs := 0
	for range 20000 {
		var a, b Value
		switch r.IntN(13) {
		case 12:
			x := Attributes{"Speed": Float64(f()), "Name": String("n"), "At": Vector3{f(), 0, 1}}
			y := Attributes{"Speed": Float64(nudge(float32(x["Speed"].(Float64)))), "Name": String("n"), "At": Vector3{nudge(x["At"].(Vector3)[0]), 0, 1}}
			switch r.IntN(5) {
			case 0:
				delete(y, "Name")
			case 2:
				y["Title"] = y["Name"]
				delete(y, "Name")
			case 1:
				y["Name"] = String("m")
			}
			a, b = x, y
		case 0:
			x := Vector2{f(), f()}
			a, b = x, Vector2{nudge(x[0]), nudge(x[1])}
		case 1:
			x := Vector3{f(), f(), f()}
			a, b = x, Vector3{nudge(x[0]), nudge(x[1]), nudge(x[2])}
		case 2:
			x := Color3{f(), f(), f()}
			a, b = x, Color3{nudge(x[0]), x[1], nudge(x[2])}
		case 3:
			x := NumberRange{f(), f()}
			a, b = x, NumberRange{nudge(x[0]), nudge(x[1])}
		case 4:
			a, b = Int32(i32()), Int32(i32())
		case 5:
			a, b = Int64(int64(i32())<<60), Int64(int64(i32())<<60)
		case 6:
			a, b = Color3uint8{uint8(i32()), 1, 2}, Color3uint8{uint8(i32()), 1, 2}
		case 7:
			a, b = Vector2int16{int16(i32()), 0}, Vector2int16{int16(i32()), 0}
		case 8:
			a, b = Vector3int16{int16(i32()), 0, 1}, Vector3int16{int16(i32()), 0, 1}
		case 9:
			x := UDim{f(), i32()}
			a, b = x, UDim{nudge(x.Scale), x.Offset + i32()%2}
		case 10:
			x := UDim2{{f(), i32()}, {f(), i32()}}
			a, b = x, UDim2{{nudge(x[0].Scale), x[0].Offset}, {x[1].Scale, x[1].Offset + i32()%2}}
		case 11:
			x := CFrame{Position: [3]float32{f(), f(), f()}, Orientation: [3][3]float32{{1, 0, 0}, {0, f(), 0}, {0, 0, 1}}}
			y := x
			y.Position[r.IntN(3)] = nudge(y.Position[0])
			y.Orientation[1][1] = nudge(y.Orientation[1][1])
			a, b = x, y
		}
		ja, errA := Marshal(a)
		jb, errB := Marshal(b)
		if errA != nil || errB != nil {
			t.Fatalf("Marshal(%#v), Marshal(%#v): %v, %v", a, b, errA, errB)
		}
		want := bytes.Equal(ja, jb) || EqualJSON(ja, jb)
		if got := Equal(a, b); got != want {
			t.Fatalf("Equal(%s, %s) = %v, comparing their JSON says %v", ja, jb, got, want)
		}
		if want {
			pairs++
		}
	}
	if pairs < 2000 || pairs > 18000 {
		t.Fatalf("%d of 20000 pairs were equal: the test does not exercise both answers", pairs)
	}
}
