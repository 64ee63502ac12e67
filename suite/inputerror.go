package suite

import (
	"errors"
	"fmt"
)

// InputError is an error in one field of a grid's input (GridConfig.Sets,
// Alphas, a shard, the device slots), for the command that read the field
// to name it its own way: bench turns field "set" into its flag --set
// (AsFlagError). Field is the input's name ("set", "alpha", "shard",
// "devices", "per-device"), Value the offending value as it will be shown
// (already quoted where it should be), Err what is wrong with it.
type InputError struct {
	Field, Value string
	Err          error
}

func (e *InputError) Error() string { return fmt.Sprintf("%s %s: %v", e.Field, e.Value, e.Err) }

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }

// inputErrorf is an InputError of field and value with a formatted Err.
func inputErrorf(field, value, format string, args ...any) error {
	return &InputError{Field: field, Value: value, Err: fmt.Errorf(format, args...)}
}

// AsFlagError rewrites an InputError in err's chain as the error of the
// command-line flag "--"+Field (the flags of bench grid are named after
// the fields), keeping the rest of the message; other errors come back
// unchanged.
func AsFlagError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("--%s %s: %w", ie.Field, ie.Value, ie.Err)
	}
	return err
}
