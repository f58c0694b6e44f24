package jsonio

import "encoding/json"

// splitArrayMembers splits the array at raw[i] into its elements, calling
// member for each member of each element that is an object (its index,
// the key decoded — do not keep it — and the value), and returns the
// index just past the array.
func splitArrayMembers(raw []byte, i int, member func(elem int, key []byte, val json.RawMessage)) ([]json.RawMessage, int) {
	elems := []json.RawMessage{}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return elems, i + 1
	}
	for i < len(raw) {
		var end int
		if raw[i] == '{' {
			end = objectMembers(raw, i, len(elems), member)
		} else {
			end = skipValue(raw, i)
		}
		elems = append(elems, raw[i:end:end])
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			if i < len(raw) && raw[i] == ']' {
				i++
			}
			return elems, i
		}
		i = skipWS(raw, i+1)
	}
	return elems, i
}

// objectMembers walks the object at raw[i], calling member for each of
// its members (SplitObjectBytes's loop), and returns the index just past
// it.
func objectMembers(raw []byte, i, elem int, member func(elem int, key []byte, val json.RawMessage)) int {
	i = skipWS(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := skipString(raw, i)
		key := keyBytes(raw[i:kend])
		i = skipWS(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return skipValue(raw, i)
		}
		i = skipWS(raw, i+1)
		end := skipValue(raw, i)
		member(elem, key, raw[i:end:end])
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipWS(raw, i+1)
	}
	if i < len(raw) && raw[i] == '}' {
		return i + 1
	}
	return i
}

// objectMapSplitting is ObjectMap that, in the same pass, splits the
// value of the member key — when it is an array — into its elements and
// each object element into its members (splitArrayMembers): one scan of a file that is mostly one long list instead of three (the
// map's, the list's, each element's). ok is false when raw is not an
// object or key is missing, repeated or not an array: the caller then
// takes the general path.
func objectMapSplitting(raw []byte, key string, member func(elem int, key []byte, val json.RawMessage)) (top map[string]json.RawMessage, elems []json.RawMessage, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, nil, false
	}
	top = map[string]json.RawMessage{}
	found := false
	i = skipWS(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := skipString(raw, i)
		k := keyBytes(raw[i:kend])
		i = skipWS(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			break
		}
		i = skipWS(raw, i+1)
		var end int
		if string(k) == key {
			if found || i >= len(raw) || raw[i] != '[' {
				return nil, nil, false
			}
			found = true
			elems, end = splitArrayMembers(raw, i, member)
		} else {
			end = skipValue(raw, i)
		}
		top[string(k)] = raw[i:end:end]
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = skipWS(raw, i+1)
	}
	if !found {
		return nil, nil, false
	}
	return top, elems, true
}
