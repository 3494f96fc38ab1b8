//go:build !unix

package author

import "errors"

func mkfifo(string) error { return errors.New("FIFOs are not supported here") }
