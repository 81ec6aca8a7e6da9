package dom

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func TestNonFiniteRoundTrip(t *testing.T) {
	inf, ninf, nan := math.Inf(1), math.Inf(-1), math.NaN()
	f := func(x float64) float32 { return float32(x) }
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"Float32 inf", Float32(f(inf)), `{"Float32":"inf"}`},
		{"Float32 -inf", Float32(f(ninf)), `{"Float32":"-inf"}`},
		{"Float32 nan", Float32(f(nan)), `{"Float32":"nan"}`},
		{"Float64 inf", Float64(inf), `{"Float64":"inf"}`},
		{"Float64 nan", Float64(nan), `{"Float64":"nan"}`},
		{"Vector2 inf", Vector2{f(inf), f(inf)}, `{"Vector2":["inf","inf"]}`},
		{"Vector2 mixed", Vector2{f(ninf), 0.5}, `{"Vector2":["-inf",0.5]}`},
		{"Vector3 huge", Vector3{f(inf), 1e-7, 3}, `{"Vector3":["inf",1e-7,3]}`},
		{"NumberRange", NumberRange{0, f(inf)}, `{"NumberRange":[0,"inf"]}`},
		{"UDim", UDim{Scale: f(inf), Offset: 3}, `{"UDim":["inf",3]}`},
		{"Rect", Rect{{0, 0}, {f(inf), 2}}, `{"Rect":[[0,0],["inf",2]]}`},
		{"CFrame", CFrame{Position: [3]float32{f(inf), 0, 0}, Orientation: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
			`{"CFrame":{"position":["inf",0,0],"orientation":[[1,0,0],[0,1,0],[0,0,1]]}}`},
		{"NumberSequence", NumberSequence{{0, f(inf), 0}, {1, 1, 0}},
			`{"NumberSequence":{"keypoints":[{"time":0,"value":"inf","envelope":0},{"time":1,"value":1,"envelope":0}]}}`},
		{"PhysicalProperties", PhysicalProperties{Density: f(inf), Friction: 0.3, Elasticity: 0.5, FrictionWeight: 1, ElasticityWeight: 1, AcousticAbsorption: 1},
			`{"PhysicalProperties":{"density":"inf","friction":0.3,"elasticity":0.5,"frictionWeight":1,"elasticityWeight":1,"acousticAbsorption":1}}`},
		{"attribute", Attributes{"Hp": Float64(inf), "Name": String("x")}, `{"Attributes":{"Hp":{"Float64":"inf"},"Name":{"String":"x"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.v)
			if err != nil {
				t.Fatalf("Marshal(%#v): %v", tt.v, err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal(%#v) = %s, want %s", tt.v, got, tt.want)
			}
			back, err := Unmarshal(got)
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", got, err)
			}
			if !Equal(back, tt.v) {
				t.Errorf("Unmarshal(%s) = %#v, want %#v", got, back, tt.v)
			}
		})
	}
}

// Finite values keep encoding/json's exact form, so plan hashes do not move.
func TestFiniteFormUnchanged(t *testing.T) {
	for _, v := range []Value{Float32(0.1), Float32(1e-7), Float32(3e21), Float64(1e-7), Vector3{0.1, 1e21, -2}, NumberRange{0, 1e-9}} {
		p, _ := payload(v)
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := encodeSpecial(&b, reflect.ValueOf(p)); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("special encoding of %#v = %s, encoding/json = %s", v, b.String(), want)
		}
	}
}

func TestNonFiniteDecodeForms(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{`{"Float32": "inf"}`, Float32(float32(math.Inf(1)))},
		{`{"Float32": " -inf"}`, nil},
		{`{"Float32": "Infinity"}`, nil},
		{`{"Float32": null}`, nil},
		{`{"Float64": "-inf"}`, Float64(math.Inf(-1))},
		{`{"Vector3": ["inf", 2, "nan"]}`, Vector3{float32(math.Inf(1)), 2, float32(math.NaN())}},
		{`{"Vector3": ["inf", 2]}`, nil},
		{`{"Vector3": ["inf", 2, null]}`, nil},
		{`{"Color3": ["x", 0, 0]}`, nil},
		{`{"ColorSequence": {"keypoints": [{"time": "inf", "color": [1, "inf", 0]}]}}`,
			ColorSequence{{Time: float32(math.Inf(1)), Color: Color3{1, float32(math.Inf(1)), 0}}}},
	}
	for _, tt := range tests {
		got, err := Unmarshal([]byte(tt.in))
		if tt.want == nil {
			if err == nil {
				t.Errorf("Unmarshal(%s) = %#v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		if !Equal(got, tt.want) {
			t.Errorf("Unmarshal(%s) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// The infinite defaults of Roblox (BillboardGui.MaxDistance, UISizeConstraint.MaxSize)
// survive a round trip.
func TestInfiniteDefaultsRoundTrip(t *testing.T) {
	for _, v := range []Value{Float32(float32(math.Inf(1))), Vector2{float32(math.Inf(1)), float32(math.Inf(1))}, Vector2{float32(math.Inf(-1)), float32(math.Inf(-1))}} {
		b := MustMarshal(v)
		back, err := Unmarshal(b)
		if err != nil || !Equal(back, v) {
			t.Errorf("round trip of %s = %#v, %v", b, back, err)
		}
	}
}

func TestStringNotUTF8(t *testing.T) {
	tests := []struct {
		name, s, want string
	}{
		{"valid", "print('é')\n", `{"String":"print('é')\n"}`},
		{"4-byte invalid", "a\xf0\x28\x8c\x28b", `{"String":{"base64":"YfAojChi"}}`},
		{"above U+10FFFF", "\xf4\x90\x80\x80", `{"String":{"base64":"9JCAgA=="}}`},
		{"surrogate", "\xed\xa0\x80", `{"String":{"base64":"7aCA"}}`},
		{"lone continuation", "\x80", `{"String":{"base64":"gA=="}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(String(tt.s))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal(%q) = %s, want %s", tt.s, got, tt.want)
			}
			back, err := Unmarshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if back != String(tt.s) {
				t.Errorf("Unmarshal(%s) = %q, want %q", got, back, tt.s)
			}
		})
	}
	for _, bad := range []string{`{"String": {"base64": "!!"}}`, `{"String": {}}`, `{"String": {"base64": "gA==", "x": 1}}`} {
		if v, err := Unmarshal([]byte(bad)); err == nil {
			t.Errorf("Unmarshal(%s) = %#v, want an error", bad, v)
		}
	}
}

func TestNonFinite(t *testing.T) {
	inf := float32(math.Inf(1))
	tests := []struct {
		v    Value
		want bool
	}{
		{Float32(1), false},
		{Float32(inf), true},
		{Float64(math.NaN()), true},
		{String("inf"), false},
		{Vector3{0, inf, 0}, true},
		{NumberSequence{{0, 1, 0}, {1, inf, 0}}, true},
		{Attributes{"a": String("x"), "b": Float64(math.Inf(-1))}, true},
		{Attributes{"a": Float64(2)}, false},
		{CFrame{Orientation: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, false},
	}
	for _, tt := range tests {
		if got := NonFinite(tt.v); got != tt.want {
			t.Errorf("NonFinite(%#v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
