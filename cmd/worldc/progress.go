package main

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// newBar is the progress bar of the commands that show one on a terminal
// (the caller decides: sys.terminal and no --json): on w, counting to
// total, described as desc, with its its ("worlds") when not "".
func newBar(w io.Writer, total int, desc, its string) *progressbar.ProgressBar {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100 * time.Millisecond),
	}
	if its != "" {
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(its))
	}
	return progressbar.NewOptions(total, opts...)
}
