package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/jsonio"
	"github.com/novelsuite/novel/internal/layout"
	"github.com/novelsuite/novel/internal/project"
)

// defaultStaleMinutes applies when the caller passes no positive limit.
const defaultStaleMinutes = 30

// futureSlack: timestamps further ahead than this are ignored, so a bad
// clock can never make a permanent lock.
const futureSlack = 5 * time.Minute

// breakWait bounds how long a breaker waits for the flock.
const breakWait = 10 * time.Second

// Reasons in Status.Reason: why the lock is (not) stale.
const (
	ReasonNoLock  = "no_lock"
	ReasonAlive   = alive     // holder on this host, pid alive: never stale
	ReasonFresh   = "fresh"   // age within the limit
	ReasonDeadPID = deadPID   // holder on this host, pid gone
	ReasonZombie  = zombie    // holder on this host, pid is a zombie
	ReasonReused  = pidReused // pid exists but started at another time
	ReasonExpired = "expired" // age beyond the limit
	ReasonNoTime  = "no_time" // every timestamp is unusable (future or missing)
	// No valid info.json, the flock free and the directory 10 s old (or a
	// dead writer's temp info inside): an acquire that never finished.
	ReasonIncomplete = "incomplete"
	// No valid info.json while .novel.lock.flock is held: an acquire (or a
	// release, break or heartbeat) is in progress.
	ReasonAcquiring = "acquiring"
	// A leased lock (SPEC §27) is held until its lease ends, whatever its pid.
	ReasonLeased       = "leased"
	ReasonLeaseExpired = "lease_expired"
)

// DefaultLease is what a renewal extends a lease by when neither the
// caller nor the lock names a length; MaxLease bounds every lease, and a
// lease_until further ahead than MaxLease (plus the clock slack) is ignored,
// so a bad clock or a hand-edited file can never make a permanent lock.
const (
	defaultLease = 30 * time.Minute
	maxLease     = 24 * time.Hour
)

// Holder describes who holds the lock. The token is never shown: it is
// the owner's proof for release and heartbeat.
type Holder struct {
	PID       *int    `json:"pid"`
	PIDStart  *uint64 `json:"pid_start,omitempty"`
	Host      *string `json:"host"`
	ThisHost  bool    `json:"this_host"`
	Started   *string `json:"started"`
	Heartbeat *string `json:"heartbeat"`
	Chapter   *int    `json:"chapter"`
	Info      string  `json:"info"`
	// LeaseUntil is set for a leased lock (SPEC §27).
	LeaseUntil *string `json:"lease_until,omitempty"`
}

// Status is the observed state of the lock.
type Status struct {
	Exists       bool    `json:"exists"`
	Stale        bool    `json:"stale"`
	Reason       string  `json:"reason"`
	Holder       *Holder `json:"holder"`
	AgeSeconds   *int64  `json:"age_seconds"`
	StaleMinutes int     `json:"stale_minutes"`

	token string
}

// Options tune acquire/inspect. Zero values mean: real clock, this host,
// the default limit.
type Options struct {
	PID          int // recorded holder pid (required for Acquire)
	Chapter      int // 0 = none
	StaleMinutes int
	Now          func() time.Time
	Host         string
	// Lease > 0 makes Acquire take a leased lock (SPEC §27): held until
	// now+Lease whatever the recorded pid.
	Lease time.Duration
	// AfterMkdir, when set, runs between the lock's mkdir and its info
	// write: tests look inside that window (or signal the process there).
	AfterMkdir func()
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

func (o Options) limit() int {
	if o.StaleMinutes > 0 {
		return o.StaleMinutes
	}
	return defaultStaleMinutes
}

func (o Options) host() string {
	if o.Host != "" {
		return o.Host
	}
	return hostname()
}

type paths struct{ dir, info, flock string }

func resolve(root *project.Root) (paths, error) {
	var p paths
	var err error
	if p.dir, err = root.Abs(layout.LockDir); err != nil {
		return p, err
	}
	if p.info, err = root.Abs(layout.LockInfo); err != nil {
		return p, err
	}
	if p.flock, err = root.Abs(layout.LockFlock); err != nil {
		return p, err
	}
	return p, nil
}

func notDirErr(rel string) *errs.Error {
	return errs.Newf(errs.IO, "%s 存在但不是目录，无法作为项目锁", "%s exists but is not a directory, so it cannot be the project lock", rel).
		With("file", rel).Hint("确认没有进程在使用后删除该文件", "make sure nothing uses it, then delete the file")
}

// Inspect observes the lock without changing anything.
func Inspect(root *project.Root, o Options) (*Status, error) {
	p, err := resolve(root)
	if err != nil {
		return nil, err
	}
	return inspect(p, o, false)
}

// inspect observes the lock. flockMine says the caller holds
// .novel.lock.flock itself (then no acquire of anyone else is in progress).
func inspect(p paths, o Options, flockMine bool) (*Status, error) {
	st := &Status{StaleMinutes: o.limit(), Reason: ReasonNoLock}
	fi, err := os.Stat(p.dir)
	if err != nil {
		if os.IsNotExist(err) {
			return st, nil
		}
		return nil, errs.Newf(errs.IO, "无法读取 %s：%v", "cannot stat %s: %v", layout.LockDir, err).With("file", layout.LockDir)
	}
	if !fi.IsDir() {
		return nil, notDirErr(layout.LockDir)
	}
	st.Exists = true
	data, rerr := os.ReadFile(p.info)
	if rerr == nil && len(data) > jsonio.MaxFileSize {
		data, rerr = nil, errors.New("too large")
	}
	info := parseInfo(data, rerr)
	st.token = info.Token
	host := o.host()
	h := &Holder{Info: info.State, Chapter: info.Chapter}
	if info.PID > 0 {
		pid := info.PID
		h.PID = &pid
	}
	if info.PIDStart > 0 {
		ps := info.PIDStart
		h.PIDStart = &ps
	}
	if info.HasHost {
		hs := info.Host
		h.Host = &hs
		h.ThisHost = host != "" && info.Host == host
	}
	if info.Started != "" {
		s := info.Started
		h.Started = &s
	}
	if info.Heartbeat != "" {
		s := info.Heartbeat
		h.Heartbeat = &s
	}
	st.Holder = h

	now := o.now()
	newest, ok := time.Time{}, false
	cands := []time.Time{fi.ModTime()}
	for _, s := range []string{info.Heartbeat, info.Started} {
		if t, good := parseTime(s); good {
			cands = append(cands, t)
		}
	}
	for _, t := range cands {
		if t.After(now.Add(futureSlack)) {
			continue
		}
		if !ok || t.After(newest) {
			newest, ok = t, true
		}
	}
	if ok {
		age := int64(now.Sub(newest) / time.Second)
		if age < 0 {
			age = 0
		}
		st.AgeSeconds = &age
	}

	if info.State != InfoOK {
		st.Reason = incompleteReason(p, host, fi.ModTime(), now, flockMine)
		st.Stale = st.Reason == ReasonIncomplete
		return st, nil
	}
	if until, leased := leaseEnd(info, now); leased {
		lu := info.LeaseUntil
		h.LeaseUntil = &lu
		if now.Before(until) {
			st.Reason = ReasonLeased
		} else {
			st.Reason, st.Stale = ReasonLeaseExpired, true
		}
		return st, nil
	}
	if h.ThisHost && info.PID > 0 {
		st.Reason = liveness(info.PID, info.PIDStart)
		st.Stale = st.Reason != alive
		return st, nil
	}
	switch {
	case !ok:
		st.Reason, st.Stale = ReasonNoTime, true
	case now.Sub(newest) > time.Duration(st.StaleMinutes)*time.Minute:
		st.Reason, st.Stale = ReasonExpired, true
	default:
		st.Reason = ReasonFresh
	}
	return st, nil
}

// leaseEnd is the end of info's lease, when it has a usable one: a
// lease_until that does not parse, or lies further ahead than MaxLease
// allows, leaves the lock to the pid and age rules.
func leaseEnd(info parsedInfo, now time.Time) (time.Time, bool) {
	until, ok := parseTime(info.LeaseUntil)
	if !ok || until.After(now.Add(maxLease+futureSlack)) {
		return time.Time{}, false
	}
	return until, true
}

// Describe renders the holder for messages: pid, host, chapter, age.
func (s *Status) Describe(lang string) string {
	h := s.Holder
	if h == nil {
		return ""
	}
	pid, host, chapter, age := "?", "?", "-", "?"
	if h.PID != nil {
		pid = fmt.Sprint(*h.PID)
	}
	if h.Host != nil {
		host = *h.Host
	}
	if h.Chapter != nil {
		chapter = fmt.Sprint(*h.Chapter)
	}
	// Whole minutes: what a person needs, and stable across a test run.
	if s.AgeSeconds != nil {
		age = fmt.Sprint(*s.AgeSeconds / 60)
	}
	if lang == "en" {
		d := fmt.Sprintf("pid %s on host %s, chapter %s, age %s min", pid, host, chapter, age)
		if h.LeaseUntil != nil {
			d += ", leased until " + *h.LeaseUntil
		}
		return d
	}
	d := fmt.Sprintf("pid %s，主机 %s，第 %s 章，已持有 %s 分钟", pid, host, chapter, age)
	if h.LeaseUntil != nil {
		d += "，租约到 " + *h.LeaseUntil
	}
	return d
}

func heldErr(st *Status) *errs.Error {
	e := errs.New(errs.LockHeld, fmt.Sprintf("项目锁被占用（%s）", st.Describe("zh")),
		fmt.Sprintf("the project lock is held (%s)", st.Describe("en")))
	hint := "等待持有者结束；若确认它已不在运行，用 novel-lock break --force 强制解除"
	hintEn := "wait for the holder to finish; if you are sure it is gone, run novel-lock break --force"
	if st.Holder != nil && st.Holder.Info != InfoOK {
		hint = "锁目录还没有有效的 info.json（正在获取，或 shell 刚 mkdir）；若没有进程在获取，它在创建 10 秒后视为废弃，几秒后重试即可"
		hintEn = "the lock directory has no valid info.json yet (an acquire in progress, or a shell's mkdir); when nobody is acquiring it counts as abandoned 10 s after it was made, so retry in a few seconds"
	}
	return e.Hint(hint, hintEn).
		With("lock", layout.LockDir).With("holder", st.Holder).With("age_seconds", st.AgeSeconds).
		With("reason", st.Reason).With("stale_minutes", st.StaleMinutes)
}

// Acquired is the result of a successful acquire.
type Acquired struct {
	Token      string  `json:"token"`
	PID        int     `json:"pid"`
	Host       string  `json:"host"`
	Started    string  `json:"started"`
	Chapter    *int    `json:"chapter"`
	BrokeStale *Broken `json:"broke_stale"`
	LeaseUntil *string `json:"lease_until,omitempty"`
}

// Broken describes a lock that was removed.
type Broken struct {
	Reason     string  `json:"reason"`
	Holder     *Holder `json:"holder"`
	AgeSeconds *int64  `json:"age_seconds"`
}

func brokenFrom(st *Status) *Broken {
	return &Broken{Reason: st.Reason, Holder: st.Holder, AgeSeconds: st.AgeSeconds}
}

// Acquire takes the lock for o.PID. A live holder → E_LOCK_HELD (exit 4);
// a stale lock is broken and re-taken. The flock on .novel.lock.flock is
// held from before the mkdir until info.json is written, so an info-less
// lock directory reads as "acquire in progress" only while someone is
// really acquiring (SPEC §4); SIGINT/SIGTERM/SIGHUP in that window are
// held back and then undo the lock (holdSignals, reraise).
func Acquire(root *project.Root, o Options) (*Acquired, error) {
	if o.PID <= 0 {
		return nil, errs.Newf(errs.Usage, "锁持有者 pid %d 无效", "invalid holder pid %d", o.PID)
	}
	if o.Lease < 0 || o.Lease > maxLease {
		return nil, leaseRangeErr(o.Lease)
	}
	p, err := resolve(root)
	if err != nil {
		return nil, err
	}
	// Refuse a live holder before touching the flock file, so a refusal
	// writes nothing at all.
	if pre, err := inspect(p, o, false); err != nil {
		return nil, err
	} else if pre.Exists && !pre.Stale {
		return nil, heldErr(pre)
	}
	var res *Acquired
	var interrupted os.Signal
	err = withFlock(p, func() error {
		cur, err := inspect(p, o, true)
		if err != nil {
			return err
		}
		var broke *Broken
		if cur.Exists {
			if !cur.Stale {
				return heldErr(cur)
			}
			if err := removeDir(p); err != nil {
				return err
			}
			broke = brokenFrom(cur)
		}
		sig := holdSignals()
		won, err := tryMkdir(p)
		if err != nil || !won {
			sig.stop()
			if err != nil {
				return err
			}
			// A shell's plain mkdir (which takes no flock) got in first.
			cur, err = inspect(p, o, true)
			if err != nil {
				return err
			}
			return heldErr(cur)
		}
		if o.AfterMkdir != nil {
			o.AfterMkdir()
		}
		res, err = writeInfo(p, o, broke)
		if interrupted = sig.stop(); interrupted != nil && err == nil {
			// Leave no lock behind; the process then dies of the signal.
			res = nil
			return removeDir(p)
		}
		return err
	})
	if interrupted != nil {
		reraise(interrupted)
		return nil, errs.Newf(errs.IO, "获取项目锁时被信号 %v 中断", "interrupted by %v while acquiring the project lock", interrupted)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func tryMkdir(p paths) (bool, error) {
	err := os.Mkdir(p.dir, 0o755)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrExist) {
		if fi, serr := os.Lstat(p.dir); serr == nil && !fi.IsDir() && fi.Mode()&os.ModeSymlink == 0 {
			return false, notDirErr(layout.LockDir)
		}
		return false, nil
	}
	return false, errs.Newf(errs.IO, "无法创建 %s：%v", "cannot create %s: %v", layout.LockDir, err).With("file", layout.LockDir)
}

func writeInfo(p paths, o Options, broke *Broken) (*Acquired, error) {
	now := stamp(o.now())
	info := Info{PID: o.PID, Host: o.host(), Started: now, Heartbeat: now, Token: newToken(), PIDStart: pIDStart(o.PID)}
	if o.Chapter > 0 {
		c := o.Chapter
		info.Chapter = &c
	}
	if o.Lease > 0 {
		info.LeaseUntil, info.LeaseSeconds = stamp(o.now().Add(o.Lease)), int(o.Lease/time.Second)
	}
	if err := jsonio.WriteJSON(p.info, info); err != nil {
		// Do not leave a lock nobody owns behind.
		os.RemoveAll(p.dir)
		return nil, err
	}
	a := &Acquired{Token: info.Token, PID: info.PID, Host: info.Host, Started: info.Started, Chapter: info.Chapter, BrokeStale: broke}
	if info.LeaseUntil != "" {
		a.LeaseUntil = &info.LeaseUntil
	}
	return a, nil
}

func removeDir(p paths) error {
	if err := os.RemoveAll(p.dir); err != nil {
		return errs.Newf(errs.IO, "无法删除 %s：%v", "cannot remove %s: %v", layout.LockDir, err).With("file", layout.LockDir)
	}
	jsonio.SyncDirNow(filepath.Dir(p.dir))
	return nil
}

// withFlock runs fn holding the flock on .novel.lock.flock, so breakers,
// releasers and heartbeats never interleave.
func withFlock(p paths, fn func() error) error {
	fl := flock.New(p.flock)
	ctx, cancel := context.WithTimeout(context.Background(), breakWait)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return errs.Newf(errs.IO, "无法锁定 %s：%v", "cannot lock %s: %v", layout.LockFlock, err).With("file", layout.LockFlock)
	}
	if !ok {
		return errs.Newf(errs.LockHeld, "另一个进程正在处理项目锁（%s 被占用）", "another process is working on the project lock (%s is busy)", layout.LockFlock).
			With("file", layout.LockFlock).Hint("稍后重试", "retry in a moment")
	}
	defer fl.Close()
	return fn()
}

// ReleaseResult is the result of release and break.
type ReleaseResult struct {
	Released bool    `json:"released"`
	Forced   bool    `json:"forced"`
	Reason   string  `json:"reason"`
	Holder   *Holder `json:"holder"`
}

// Release removes the lock when token is the holder's (or force). A
// token release of a lock that is no longer there is E_LOCK_LOST (SPEC
// §27: the caller believed it held a lock, and must hear that it did
// not); a forced release of no lock is a no-op (released:false).
func Release(root *project.Root, token string, force bool) (*ReleaseResult, error) {
	p, err := resolve(root)
	if err != nil {
		return nil, err
	}
	// Refuse a non-owner before touching the flock file, so a refused
	// release writes nothing at all.
	if pre, err := inspect(p, Options{}, false); err != nil {
		return nil, err
	} else if !pre.Exists {
		if !force {
			return nil, lostErr(verbRelease, nil)
		}
		return &ReleaseResult{Reason: ReasonNoLock}, nil
	} else if !force && (token == "" || pre.token != token) {
		return nil, notOwnerErr(pre)
	}
	var res *ReleaseResult
	err = withFlock(p, func() error {
		st, err := inspect(p, Options{}, true)
		if err != nil {
			return err
		}
		if !st.Exists {
			if !force {
				return lostErr(verbRelease, nil)
			}
			res = &ReleaseResult{Reason: ReasonNoLock}
			return nil
		}
		owner := token != "" && st.token == token
		if !owner && !force {
			return notOwnerErr(st)
		}
		if err := removeDir(p); err != nil {
			return err
		}
		reason := "owner"
		if !owner {
			reason = "forced"
		}
		res = &ReleaseResult{Released: true, Forced: !owner, Reason: reason, Holder: st.Holder}
		return nil
	})
	return res, err
}

func notOwnerErr(st *Status) *errs.Error {
	return errs.New(errs.LockNotOwner, fmt.Sprintf("令牌与项目锁的持有者不符，未改动该锁（持有者：%s）", st.Describe("zh")),
		fmt.Sprintf("the token does not match the lock holder, so the lock was left alone (holder: %s)", st.Describe("en"))).
		Hint("使用 acquire 返回的令牌；确需人工解除时用 --force", "use the token acquire returned; a person may use --force").
		With("lock", layout.LockDir).With("holder", st.Holder)
}

// HeartbeatResult is the result of a heartbeat.
type HeartbeatResult struct {
	Heartbeat string `json:"heartbeat"`
	PID       int    `json:"pid"`
	Chapter   *int   `json:"chapter"`
}

// Heartbeat refreshes the holder's heartbeat; only the owner may.
func Heartbeat(root *project.Root, token string, o Options) (*HeartbeatResult, error) {
	p, err := resolve(root)
	if err != nil {
		return nil, err
	}
	// Refuse before withFlock creates .novel.lock.flock: a refusal writes nothing.
	if pre, err := inspect(p, o, false); err != nil {
		return nil, err
	} else if !pre.Exists {
		return nil, noLockErr()
	} else if token == "" || pre.token != token {
		return nil, notOwnerErr(pre)
	}
	var res *HeartbeatResult
	err = withFlock(p, func() error {
		st, err := inspect(p, o, true)
		if err != nil {
			return err
		}
		if !st.Exists {
			return noLockErr()
		}
		if token == "" || st.token != token {
			return notOwnerErr(st)
		}
		var info Info
		if err := jsonio.ReadJSON(p.info, layout.LockInfo, &info); err != nil {
			return err
		}
		info.Heartbeat = stamp(o.now())
		if err := jsonio.WriteJSON(p.info, info); err != nil {
			return err
		}
		res = &HeartbeatResult{Heartbeat: info.Heartbeat, PID: info.PID, Chapter: info.Chapter}
		return nil
	})
	return res, err
}

// RenewResult is the result of a lease renewal.
type RenewResult struct {
	LeaseUntil string `json:"lease_until"`
	Heartbeat  string `json:"heartbeat"`
	PID        int    `json:"pid"`
	Chapter    *int   `json:"chapter"`
}

// Renew extends the lease of the lock token holds to now+lease (lease 0:
// the length the lock was taken with, else DefaultLease) and refreshes its
// heartbeat. A lock taken without a lease becomes leased. A lease that has
// run out but was not broken is still the token's, so it is renewed too.
// No lock, or another holder's → E_LOCK_LOST.
func Renew(root *project.Root, token string, lease time.Duration, o Options) (*RenewResult, error) {
	if lease < 0 || lease > maxLease {
		return nil, leaseRangeErr(lease)
	}
	p, err := resolve(root)
	if err != nil {
		return nil, err
	}
	// Refuse before withFlock creates .novel.lock.flock: a refusal writes nothing.
	if pre, err := inspect(p, o, false); err != nil {
		return nil, err
	} else if err := renewRefusal(pre, token); err != nil {
		return nil, err
	}
	var res *RenewResult
	err = withFlock(p, func() error {
		st, err := inspect(p, o, true)
		if err != nil {
			return err
		}
		if err := renewRefusal(st, token); err != nil {
			return err
		}
		var info Info
		if err := jsonio.ReadJSON(p.info, layout.LockInfo, &info); err != nil {
			return err
		}
		length := lease
		if length == 0 {
			length = time.Duration(info.LeaseSeconds) * time.Second
		}
		if length <= 0 || length > maxLease {
			length = defaultLease
		}
		now := o.now()
		info.Heartbeat = stamp(now)
		info.LeaseUntil, info.LeaseSeconds = stamp(now.Add(length)), int(length/time.Second)
		if err := jsonio.WriteJSON(p.info, info); err != nil {
			return err
		}
		res = &RenewResult{LeaseUntil: info.LeaseUntil, Heartbeat: info.Heartbeat, PID: info.PID, Chapter: info.Chapter}
		return nil
	})
	return res, err
}

func renewRefusal(st *Status, token string) error {
	switch {
	case !st.Exists:
		return lostErr(verbRenew, nil)
	case token == "" || st.token != token:
		return lostErr(verbRenew, st)
	}
	return nil
}

// A lost-lock refusal names what was not done, in both languages.
type verb struct{ zh, en string }

var (
	verbRenew   = verb{"续租", "renewed"}
	verbRelease = verb{"释放", "released"}
)

// lostErr is E_LOCK_LOST for a release or renew of a lock that is gone
// (st nil) or is now held under another token (st its status).
func lostErr(v verb, st *Status) *errs.Error {
	zh, en := "项目锁已不存在", "the project lock is no longer there"
	if st != nil {
		zh, en = "项目锁已归他人持有（"+st.Describe("zh")+"）", "the project lock is now held by someone else ("+st.Describe("en")+")"
	}
	e := errs.New(errs.LockLost, zh+"，未"+v.zh, en+", so it was not "+v.en).
		Hint("你持有的锁已失效（租约到期后被他人解除，或被强制解除）：先重新 novel-lock acquire --lease 30m，再继续写入",
			"the lock you held is gone (broken after its lease ran out, or by force): run novel-lock acquire --lease 30m again before writing").
		With("lock", layout.LockDir)
	if st != nil {
		e = e.With("holder", st.Holder)
	}
	return e
}

func leaseRangeErr(d time.Duration) *errs.Error {
	return errs.Newf(errs.Usage, "租约时长 %v 无效：须大于 0 且不超过 24h", "lease %v is out of range: it must be more than 0 and at most 24h", d).
		Hint("例如 --lease 30m 或 --lease 2h", "e.g. --lease 30m or --lease 2h")
}

func noLockErr() *errs.Error {
	return errs.New(errs.LockNotOwner, "项目锁不存在，无法刷新心跳", "there is no project lock to refresh").
		Hint("锁可能已被释放或强制解除；重新 acquire", "the lock was released or broken; acquire it again").With("lock", layout.LockDir)
}

// Break removes a stale lock, or any lock with force. A live lock without
// force → E_LOCK_HELD.
func Break(root *project.Root, force bool, o Options) (*ReleaseResult, error) {
	p, err := resolve(root)
	if err != nil {
		return nil, err
	}
	if pre, err := inspect(p, o, false); err != nil {
		return nil, err
	} else if !pre.Exists {
		return &ReleaseResult{Reason: ReasonNoLock}, nil
	} else if !pre.Stale && !force {
		return nil, liveBreakErr(pre)
	}
	var res *ReleaseResult
	err = withFlock(p, func() error {
		st, err := inspect(p, o, true)
		if err != nil {
			return err
		}
		if !st.Exists {
			res = &ReleaseResult{Reason: ReasonNoLock}
			return nil
		}
		if !st.Stale && !force {
			return liveBreakErr(st)
		}
		if err := removeDir(p); err != nil {
			return err
		}
		res = &ReleaseResult{Released: true, Forced: !st.Stale, Reason: st.Reason, Holder: st.Holder}
		return nil
	})
	return res, err
}

// Token returns the token recorded in the lock ("" when none or unreadable).
func Token(root *project.Root) string {
	p, err := resolve(root)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(p.info)
	return parseInfo(data, err).Token
}

func liveBreakErr(st *Status) *errs.Error {
	return heldErr(st).Hint("锁仍有效，未解除；确认持有者已不在运行后用 novel-lock break --force",
		"the lock is live and was left alone; once you are sure the holder is gone, use novel-lock break --force")
}
