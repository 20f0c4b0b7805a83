package tokens

import (
	"fmt"
	"reflect"

	"github.com/tiktoken-go/tokenizer"
)

// ranks is an encoding's vocabulary as read from the library: each token's
// bytes and its merge rank, which in tiktoken is the token's id.
type ranks struct {
	// library is the codec's own map of tokens to ids, when it could be
	// read (a reflect.Value of kind Map); else byID holds every token, ""
	// for an id that is none.
	library reflect.Value
	byID    []string
}

// each calls yield with each token and its rank, in no particular order.
func (r ranks) each(yield func(tok string, rank uint32)) {
	if r.library.IsValid() {
		for it := r.library.MapRange(); it.Next(); {
			yield(it.Key().String(), uint32(it.Value().Uint()))
		}
		return
	}
	for id, tok := range r.byID {
		if tok != "" {
			yield(tok, uint32(id))
		}
	}
}

// minTokens is fewer tokens than any encoding has: reading fewer means the
// reading went wrong.
const minTokens = 50_000

// readRanks reads c's vocabulary. tiktoken-go exports no way to list it:
// the only one, decoding each id, costs an allocation per token,
// and the first Decode builds the codec's id-to-token table (3 MB for
// o200k_base). The codec's own map (field vocabulary, a map[string]uint,
// in tokenizer v0.10.0's codec.Codec; the library fills it once per
// process and never writes it again) is therefore read through reflect,
// which reads an unexported field without writing it or converting it to
// an interface: its strings are the library's, which it keeps anyway.
// Where the library has changed, each id is decoded as before.
// TestReadRanks holds the two readings to the same vocabulary.
func readRanks(c tokenizer.Codec) (ranks, error) {
	if m := libraryVocabulary(c); m.IsValid() && m.Len() >= minTokens {
		return ranks{library: m}, nil
	}
	return decodeRanks(c)
}

// libraryVocabulary is c's map of tokens to ids, or the zero Value where
// c is not a codec.Codec holding one.
func libraryVocabulary(c tokenizer.Codec) reflect.Value {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	field := v.Elem().FieldByName("vocabulary")
	if !field.IsValid() || field.Kind() != reflect.Map || field.Type().Key().Kind() != reflect.String || field.Type().Elem().Kind() != reflect.Uint {
		return reflect.Value{}
	}
	return field
}

// decodeRanks reads c's vocabulary by decoding each id until 4,096 ids in
// a row decode to nothing (ids past the vocabulary, or a gap in it). The
// codec's error mode must leave the bytes as they are (its default).
func decodeRanks(c tokenizer.Codec) (ranks, error) {
	byID := make([]string, 0, 200_000)
	misses, found := 0, 0
	for id := uint(0); misses < 4096; id++ {
		tok, err := c.Decode([]uint{id})
		if err != nil || tok == "" {
			misses++
			byID = append(byID, "")
			continue
		}
		misses = 0
		found++
		byID = append(byID, tok)
	}
	if found < minTokens {
		return ranks{}, fmt.Errorf("only %d tokens read from the vocabulary", found)
	}
	return ranks{byID: byID}, nil
}
