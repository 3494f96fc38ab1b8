//go:build !unix

package output

import "errors"

func mkfifo(string) error { return errors.New("not supported") }
