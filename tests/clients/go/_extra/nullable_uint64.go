package saboteur

import "encoding/json"

// The spec marks integers that may pass 2^63 (a bot's 64-bit seed) `x-unsigned`; run.sh maps
// them to uint64 (`--type-mappings UnsignedLong=uint64`), and the go generator, which has
// nullable wrappers for its own types only, needs this one for a nullable uint64.

// NullableUint64 is a uint64 that may be null.
type NullableUint64 struct {
	value *uint64
	isSet bool
}

// Get returns the value, nil when null.
func (v NullableUint64) Get() *uint64 { return v.value }

// Set sets the value (nil for null).
func (v *NullableUint64) Set(val *uint64) { v.value = val; v.isSet = true }

// IsSet says whether a value (or null) was set.
func (v NullableUint64) IsSet() bool { return v.isSet }

// Unset forgets the value.
func (v *NullableUint64) Unset() { v.value = nil; v.isSet = false }

// NewNullableUint64 makes a set NullableUint64.
func NewNullableUint64(val *uint64) *NullableUint64 { return &NullableUint64{value: val, isSet: true} }

// MarshalJSON writes the value, or null.
func (v NullableUint64) MarshalJSON() ([]byte, error) { return json.Marshal(v.value) }

// UnmarshalJSON reads the value, or null.
func (v *NullableUint64) UnmarshalJSON(src []byte) error {
	v.isSet = true
	return json.Unmarshal(src, &v.value)
}
