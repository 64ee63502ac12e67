// Package htmltest parses the pages of bench report html (reports/html) in
// tests: the page is XHTML-clean HTML, so that without its doctype, style
// and script it is well-formed XML.
package htmltest

import (
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
)

// Element is a parsed element of a page.
type Element struct {
	Name  string
	Attrs map[string]string
	Text  string // its character data, descendants' included
}

// ScriptOrStyle matches the page's <script> and <style> elements, which
// Parse leaves out (their text is not XML).
var ScriptOrStyle = regexp.MustCompile(`(?s)<(script|style)>.*?</(script|style)>`)

// Parse checks that page (without its doctype, style and script) is
// well-formed XML and returns its elements in document order; a page that
// is not fails tb.
func Parse(tb testing.TB, page string) []*Element {
	tb.Helper()
	s := ScriptOrStyle.ReplaceAllString(strings.TrimPrefix(page, "<!DOCTYPE html>\n"), "")
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = true
	var all, open []*Element
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return all
		}
		if err != nil {
			tb.Fatalf("the page is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &Element{Name: tok.Name.Local, Attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.Attrs[a.Name.Local] = a.Value
			}
			all, open = append(all, e), append(open, e)
		case xml.EndElement:
			open = open[:len(open)-1]
		case xml.CharData:
			for _, e := range open {
				e.Text += string(tok)
			}
		}
	}
}
