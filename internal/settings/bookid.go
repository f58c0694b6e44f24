package settings

import (
	"github.com/gofrs/uuid/v5"

	"github.com/novelsuite/novel/internal/errs"
)

// NewBookID is a fresh settings.json book_id (SPEC §22.1): a random UUID
// that novel init and novel migrate write, so every book an author exports
// keeps one identity of its own in readers' libraries.
func NewBookID() (string, error) {
	id, err := uuid.NewV4()
	if err != nil {
		return "", errs.Newf(errs.IO, "无法生成 book_id：%v", "cannot make a book_id: %v", err)
	}
	return id.String(), nil
}
