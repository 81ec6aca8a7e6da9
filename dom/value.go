package dom

// Value is a typed Roblox property value. Each concrete type below is one variant of
// rbx-dom's Variant; Type returns its tag in the JSON encoding ({"Vector3":[0,5,0]}).
type Value interface {
	Type() string
}

// The value types. Floats are float32 where Roblox stores f32.
type (
	Bool         bool
	String       string
	Float32      float32
	Float64      float64
	Int32        int32
	Int64        int64
	Vector2      [2]float32
	Vector3      [3]float32
	Vector2int16 [2]int16
	Vector3int16 [3]int16
	Color3       [3]float32
	Color3uint8  [3]uint8
	UDim         struct {
		Scale  float32
		Offset int32
	}
	UDim2 [2]UDim
	// CFrame's Orientation is given row by row; column 0 is the RightVector.
	CFrame struct {
		Position    [3]float32
		Orientation [3][3]float32
	}
	// OptionalCFrame is a CFrame or nothing (nil).
	OptionalCFrame struct{ CFrame *CFrame }
	// Enum is an enum item's value; the enum it belongs to comes from the property.
	Enum uint32
	// EnumItem is an enum item that carries its enum's name (used in attributes).
	EnumItem struct {
		EnumType string
		Value    uint32
	}
	BrickColor     uint16
	NumberRange    [2]float32
	NumberSequence []NumberKeypoint
	ColorSequence  []ColorKeypoint
	Rect           [2]Vector2
	Ray            struct{ Origin, Direction Vector3 }
	Region3        [2]Vector3
	Region3int16   [2]Vector3int16
	Axes           []string
	Faces          []string
	ContentId      string
	// Content is "None", a Uri, or an Object (a ref).
	Content struct {
		Kind  string // "None", "Uri" or "Object"
		Value string
	}
	Tags       []string
	Attributes map[string]Value
	Font       struct {
		Family       string
		Weight       string
		Style        string
		CachedFaceID *string
	}
	// Ref is 32 lowercase hex digits; all zeros means nil.
	Ref                string
	PhysicalProperties struct {
		Default                                                         bool
		Density, Friction, Elasticity, FrictionWeight, ElasticityWeight float32
		AcousticAbsorption                                              float32
	}
	MaterialColors       map[string][3]uint8
	BinaryString         []byte
	SharedString         []byte
	NetAssetRef          []byte
	UniqueId             string
	SecurityCapabilities uint64
)

// NumberKeypoint is one point of a NumberSequence.
type NumberKeypoint struct {
	Time, Value, Envelope float32
}

// ColorKeypoint is one point of a ColorSequence.
type ColorKeypoint struct {
	Time  float32
	Color Color3
}

func (Bool) Type() string                 { return "Bool" }
func (String) Type() string               { return "String" }
func (Float32) Type() string              { return "Float32" }
func (Float64) Type() string              { return "Float64" }
func (Int32) Type() string                { return "Int32" }
func (Int64) Type() string                { return "Int64" }
func (Vector2) Type() string              { return "Vector2" }
func (Vector3) Type() string              { return "Vector3" }
func (Vector2int16) Type() string         { return "Vector2int16" }
func (Vector3int16) Type() string         { return "Vector3int16" }
func (Color3) Type() string               { return "Color3" }
func (Color3uint8) Type() string          { return "Color3uint8" }
func (UDim) Type() string                 { return "UDim" }
func (UDim2) Type() string                { return "UDim2" }
func (CFrame) Type() string               { return "CFrame" }
func (OptionalCFrame) Type() string       { return "OptionalCFrame" }
func (Enum) Type() string                 { return "Enum" }
func (EnumItem) Type() string             { return "EnumItem" }
func (BrickColor) Type() string           { return "BrickColor" }
func (NumberRange) Type() string          { return "NumberRange" }
func (NumberSequence) Type() string       { return "NumberSequence" }
func (ColorSequence) Type() string        { return "ColorSequence" }
func (Rect) Type() string                 { return "Rect" }
func (Ray) Type() string                  { return "Ray" }
func (Region3) Type() string              { return "Region3" }
func (Region3int16) Type() string         { return "Region3int16" }
func (Axes) Type() string                 { return "Axes" }
func (Faces) Type() string                { return "Faces" }
func (ContentId) Type() string            { return "ContentId" }
func (Content) Type() string              { return "Content" }
func (Tags) Type() string                 { return "Tags" }
func (Attributes) Type() string           { return "Attributes" }
func (Font) Type() string                 { return "Font" }
func (Ref) Type() string                  { return "Ref" }
func (PhysicalProperties) Type() string   { return "PhysicalProperties" }
func (MaterialColors) Type() string       { return "MaterialColors" }
func (BinaryString) Type() string         { return "BinaryString" }
func (SharedString) Type() string         { return "SharedString" }
func (NetAssetRef) Type() string          { return "NetAssetRef" }
func (UniqueId) Type() string             { return "UniqueId" }
func (SecurityCapabilities) Type() string { return "SecurityCapabilities" }

// IdentityCFrame is the CFrame at the origin with no rotation.
var IdentityCFrame = CFrame{Orientation: [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}

// AttributeTypes are the value types an attribute may have.
var AttributeTypes = map[string]bool{
	"String": true, "BinaryString": true, "Bool": true, "Int32": true, "Float32": true,
	"Float64": true, "UDim": true, "UDim2": true, "BrickColor": true, "Color3": true,
	"Vector2": true, "Vector3": true, "CFrame": true, "EnumItem": true, "NumberSequence": true,
	"ColorSequence": true, "NumberRange": true, "Rect": true, "Font": true,
}
