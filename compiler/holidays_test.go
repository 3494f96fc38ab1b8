package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/worldc/worldc/compiler/diag"
)

// holidaySpec is a world whose holidays come from header, with a tool that
// reads the working days.
func holidaySpec(header string) string {
	return `world w { title "W" today 2026-03-30 ` + header + ` }
service s "S" {
  entity E { due date }
  tool get_e: get E
  tool due_in(e: ref E, n: int) "Set the due date n working days from today" {
    set e.due = add_working_days(today, n)
    return e
  }
}
seed { s.E e1 { due: 2026-03-01 } }
task t {
  persona "P"
  instruction "Due in 5 working days."
  expect { s.E[e1].due == 2026-04-08 }
  solution { due_in(e: e1, n: 5) }
}
`
}

// TestHolidaysFromData: holidays read from a CSV file (a date column,
// other columns ignored) or a JSON array of dates or of objects with a
// date are the world's, sorted, and the working days skip them (the
// golden solution's 5 working days after Monday 2026-03-30 skip Good
// Friday and Easter Monday). A literal list gives the same world.
func TestHolidaysFromData(t *testing.T) {
	want := []string{"2026-04-03", "2026-04-06", "2026-12-25"}
	for name, files := range map[string]fstest.MapFS{
		"csv":          {"cal/holidays.csv": {Data: []byte("date,name\n2026-12-25,Christmas Day\n2026-04-03,Good Friday\n2026-04-06,Easter Monday\n")}},
		"csv with BOM": {"cal/holidays.csv": {Data: []byte("\xEF\xBB\xBFname,date\r\nGood Friday,2026-04-03\r\nEaster Monday,2026-04-06\r\nChristmas,2026-12-25\r\n")}},
		"json dates":   {"cal/holidays.json": {Data: []byte(`["2026-04-06", "2026-04-03", "2026-12-25"]`)}},
		"json objects": {"cal/holidays.json": {Data: []byte(`[{"date": "2026-04-03", "name": "Good Friday"}, {"name": "Easter Monday", "date": "2026-04-06"}, {"date": "2026-12-25"}]`)}},
	} {
		file := "cal/holidays.csv"
		if strings.HasPrefix(name, "json") {
			file = "cal/holidays.json"
		}
		w, ds := CheckSource("spec.world", []byte(holidaySpec(`holidays from "`+file+`"`)), WithData(files))
		if len(ds) > 0 {
			t.Errorf("%s: %s", name, ds.Text())
			continue
		}
		if !slices.Equal(w.Holidays, want) {
			t.Errorf("%s: holidays %v, want %v", name, w.Holidays, want)
		}
	}
	w, ds := CheckSource("spec.world", []byte(holidaySpec(`holidays "2026-12-25, 2026-04-03 2026-04-06"`)))
	if len(ds) > 0 || !slices.Equal(w.Holidays, want) {
		t.Errorf("the literal list: %v %s", w.Holidays, ds.Text())
	}
	// Without the holidays, 5 working days after 2026-03-30 are 2026-04-06.
	if _, ds := CheckSource("spec.world", []byte(holidaySpec(""))); !ds.HasErrors() {
		t.Error("without holidays the golden solution should miss its due date")
	}
}

// TestHolidaysErrors: malformed dates, duplicates, a file of the wrong
// shape and too many entries are coded diagnostics placed in the data
// file (or at the header for a file that cannot be read).
func TestHolidaysErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("date\n")
	for n := 0; n <= MaxHolidays; n++ {
		fmt.Fprintf(&b, "%04d-01-%02d\n", 2000+n/28, 1+n%28)
	}
	many := b.String()
	for _, c := range []struct {
		name, header, file, data string
		code                     diag.Code
		msg                      string
	}{
		{"no such day", `holidays from "h.csv"`, "h.csv", "date\n2026-04-03\n2026-02-30\n", diag.InvalidLiteral, `h.csv:3:1: .*holiday "2026-02-30" is not a date`},
		{"not a date", `holidays from "h.json"`, "h.json", `["2026-04-03", "Easter"]`, diag.InvalidLiteral, `h.json:1:16: .*holiday "Easter" is not a date`},
		{"empty cell", `holidays from "h.csv"`, "h.csv", "date,name\n,Good Friday\n", diag.InvalidLiteral, `h.csv:2:1: .*row 1 has no date`},
		{"duplicate in a file", `holidays from "h.csv"`, "h.csv", "date\n2026-04-03\n2026-04-06\n2026-04-03\n", diag.DuplicateName, `h.csv:4:1: .*holiday 2026-04-03 is listed twice, first at 2:1`},
		{"duplicate in the header", `holidays "2026-04-03, 2026-04-03"`, "", "", diag.DuplicateName, `spec.world:1:.*holiday 2026-04-03 is listed twice`},
		{"no date column", `holidays from "h.csv"`, "h.csv", "day,name\n2026-04-03,Good Friday\n", diag.DataFile, `no date column \(its header: day, name\)`},
		{"not an array", `holidays from "h.json"`, "h.json", `{"date": "2026-04-03"}`, diag.DataFile, `must hold an array of dates`},
		{"a number", `holidays from "h.json"`, "h.json", `[20260403]`, diag.DataFile, `a holiday is a date string such as "2026-04-03", not a number`},
		{"no date member", `holidays from "h.json"`, "h.json", `[{"day": "2026-04-03"}]`, diag.DataFile, `a holiday object has no "date" member`},
		{"too many", `holidays from "h.csv"`, "h.csv", many, diag.SizeLimit, fmt.Sprintf(`more than %d holidays`, MaxHolidays)},
		{"missing", `holidays from "h.csv"`, "", "", diag.DataFile, `no data file "h.csv" in the spec's directory`},
		{"outside", `holidays from "../h.csv"`, "", "", diag.DataFile, `leaves the spec's directory`},
		{"another format", `holidays from "h.txt"`, "h.txt", "2026-04-03\n", diag.DataFile, `data files are .json or .csv files`},
		{"from for another key", `country from "c.csv"`, "", "", diag.WorldHeader, `only the policy and the holidays are`},
	} {
		files := fstest.MapFS{}
		if c.file != "" {
			files[c.file] = &fstest.MapFile{Data: []byte(c.data)}
		}
		_, ds := CheckSource("spec.world", []byte(holidaySpec(c.header)), WithData(files))
		found := false
		for _, dg := range ds {
			if dg.Code == c.code && matches(t, c.msg, fmt.Sprintf("%s:%d:%d: %s", dg.File, dg.Line, dg.Col, dg.Message)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s matching %q in\n%s", c.name, c.code, c.msg, ds.Text())
		}
	}
}

// TestHolidaysFileIsRegular: a holidays file is read through the spec
// directory's os.Root: a FIFO (which would block a read) or a link out of
// the directory is refused, as for a load.
func TestHolidaysFileIsRegular(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "h.csv"), []byte("date\n2026-04-03\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "h.csv"), filepath.Join(dir, "h.csv")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	spec := filepath.Join(dir, "spec.world")
	if err := os.WriteFile(spec, []byte(holidaySpec(`holidays from "h.csv"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(spec)
	_, ds := CheckSource(spec, src)
	if !ds.HasErrors() || !strings.Contains(ds.Text(), "W023") {
		t.Errorf("a link out of the spec's directory: %s", ds.Text())
	}
}

// matches reports whether s matches the regular expression rx.
func matches(t *testing.T, rx, s string) bool {
	t.Helper()
	re, err := regexp.Compile(rx)
	if err != nil {
		t.Fatalf("bad regexp %q: %v", rx, err)
	}
	return re.MatchString(s)
}
