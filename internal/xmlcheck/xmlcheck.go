// Package xmlcheck tells whether bytes are one well-formed XML document:
// the tests' check that every SVG hxbar writes opens in a strict parser
// (issue 25: a "--" inside a comment made rsvg-convert refuse a plot).
package xmlcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// Strict parses b to its end with encoding/xml in strict mode and requires
// one root element.
func Strict(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	roots, depth := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if roots != 1 {
				return errors.New("no single root element")
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
}
