package mapping

import (
	"fmt"
	"strconv"
)

// Reason is one piece of evidence behind a suggestion: Code names the rule that found it
// and Args its words and numbers, so that a page can say it in its own language (the
// wizard's locale key is "map.reason.<code>", with the args as its template data; an arg
// "what" is a code of its own, "kind" a kind of value, "lang" a language code). Text is the
// English sentence, which the API returns in metadata.reasons.
type Reason struct {
	Code string            `json:"code"`
	Args map[string]string `json:"args,omitempty"`
	Text string            `json:"-"`
}

// because makes a reason of code with its English text and its args as key, value pairs.
func because(code, text string, kv ...string) Reason {
	r := Reason{Code: code, Text: text}
	if len(kv) > 0 {
		r.Args = make(map[string]string, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			r.Args[kv[i]] = kv[i+1]
		}
	}
	return r
}

// with is r with one more arg, its text formatted with value where it has a %q.
func (r Reason) with(key, value string) Reason {
	args := make(map[string]string, len(r.Args)+1)
	for k, v := range r.Args {
		args[k] = v
	}
	args[key] = value
	return Reason{Code: r.Code, Args: args, Text: fmt.Sprintf(r.Text, value)}
}

// Texts are the English sentences of reasons, as the API returns them.
func Texts(rs []Reason) []string {
	if rs == nil {
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Text
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// Reason codes and the args each carries.
const (
	ReasonHeaderEquals     = "header_equals"     // what, name
	ReasonHeaderNormalized = "header_normalized" // what, name
	ReasonSameMeaning      = "same_meaning"      // what, name, terms
	ReasonShare            = "share"             // what, name, words
	ReasonSpelled          = "spelled"           // word, like, percent, what, name
	ReasonRelated          = "related"           // what, name
	ReasonDescription      = "description"       // words
	ReasonValuesLookLike   = "values_look_like"  // kind
	ReasonValuesOnly       = "values_only"       // kind: the header says little
	ReasonHashNumbers      = "hash_numbers"
	ReasonOptionsMatch     = "options_match" // matched, total
	ReasonHistoryMine      = "history_mine"  // count
	ReasonHistoryOthers    = "history_others"
	ReasonAbbreviation     = "abbreviation" // from, to
	ReasonSynonym          = "synonym"      // from, to
	ReasonLanguage         = "language"     // lang, from, to
	ReasonCompound         = "compound"     // word, parts, to
	ReasonCustomField      = "custom_field"
)

// ReasonCodes are every code a reason may carry.
var ReasonCodes = []string{ReasonHeaderEquals, ReasonHeaderNormalized, ReasonSameMeaning, ReasonShare, ReasonSpelled,
	ReasonRelated, ReasonDescription, ReasonValuesLookLike, ReasonValuesOnly, ReasonHashNumbers, ReasonOptionsMatch,
	ReasonHistoryMine, ReasonHistoryOthers, ReasonAbbreviation, ReasonSynonym, ReasonLanguage, ReasonCompound, ReasonCustomField}
