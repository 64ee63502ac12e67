package suite

import (
	"reflect"
	"strings"
	"testing"
)

func TestTestEmbeddings(t *testing.T) {
	eval := []int{1, 2, 4, 6}
	test := []int{2, 6}
	truthOf := func(g int) int {
		if g == 6 {
			return Unknown
		}
		return g % 3
	}
	emb := [][]float32{{10, 11}, {20, 21}, {40, 41}, {60, 61}}
	got, err := TestEmbeddings(eval, test, emb, truthOf)
	if err != nil {
		t.Fatal(err)
	}
	want := &Embeddings{Graphs: []int{2, 6}, Truth: []int{2, Unknown}, Dim: 2, Data: []float32{20, 21, 60, 61}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TestEmbeddings = %+v, want %+v", got, want)
	}
	if r := got.Row(1); !reflect.DeepEqual(r, []float32{60, 61}) {
		t.Errorf("Row(1) = %v", r)
	}
	if got, err := TestEmbeddings(eval, test, nil, truthOf); got != nil || err != nil {
		t.Errorf("nil embeddings: %v, %v; want nil, nil", got, err)
	}
	for _, tc := range []struct {
		name string
		emb  [][]float32
		test []int
		want string
	}{
		{"short", emb[:3], test, "3 rows for 4 evaluation graphs"},
		{"ragged", [][]float32{{1, 2}, {3}, {4, 5}, {6, 7}}, test, "row 1 has width 1"},
		{"empty rows", [][]float32{{}, {}, {}, {}}, test, "row 0 has width 0"},
		{"test graph outside eval", emb, []int{3}, "test graph 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := TestEmbeddings(eval, tc.test, tc.emb, truthOf); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
