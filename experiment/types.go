package experiment

import (
	"context"
	"errors"
	"time"
)

// Experiment kinds.
const (
	// KindRecognition is forced-choice recognition: one image, one of the
	// task's categories as the answer.
	KindRecognition = "recognition"
	// KindDistinguish is the distinguishability experiment: two images
	// corrupted by the same or by different corruption functions; the
	// answer is AnswerSame or AnswerDifferent.
	KindDistinguish = "distinguish"
)

// Answers of a distinguishability trial (also its ground truth).
const (
	AnswerSame      = "same"
	AnswerDifferent = "different"
)

// Role is what a stimulus or a trial is for.
type Role string

// Roles. Practice trials are not scored; qualification trials must be
// passed (Design.QualificationMinCorrect) before the main trials start;
// sanity (catch) trials are clear, easy images interleaved with the main
// trials, and a participant failing more than Design.SanityMaxFailures of
// them is excluded.
const (
	RolePractice      Role = "practice"
	RoleQualification Role = "qualification"
	RoleMain          Role = "main"
	RoleSanity        Role = "sanity"
)

// Stimulus is one thing shown in a trial. Nothing of it but the image bytes
// ever reaches a participant's browser: the server serves images under
// per-trial random tokens (Trial.Token).
type Stimulus struct {
	// ID identifies the stimulus in the store and in exports, e.g. "m000123".
	ID   string `json:"id"`
	Role Role   `json:"role"`
	// SourceID identifies the source image (the dataset's name for it). No
	// participant sees two stimuli with the same SourceID, clean or
	// corrupted.
	SourceID string `json:"source_id"`
	// Dataset is the kind of dataset the source came from ("imagefolder",
	// "imagenet", "cifar10", …).
	Dataset string `json:"dataset,omitempty"`
	// Path is the image file, relative to Design.Root (slash-separated).
	Path string `json:"path"`
	// Corruption is the catalogue name; empty for a clean original.
	Corruption string `json:"corruption,omitempty"`
	// Params is the corruption's parameters as the manifest writes them.
	Params string `json:"params,omitempty"`
	// TestSetID is the manifest row id (−1 for a clean original).
	TestSetID int     `json:"testset_id"`
	DV        float64 `json:"dv"`
	VIFMethod string  `json:"vif_method,omitempty"`
	// GroundTruth is the task category (recognition) or AnswerSame /
	// AnswerDifferent (distinguish).
	GroundTruth string `json:"ground_truth"`
	IsOriginal  bool   `json:"is_original"`

	// The second image of a distinguishability pair (empty otherwise).
	Path2       string  `json:"path2,omitempty"`
	SourceID2   string  `json:"source_id2,omitempty"`
	Corruption2 string  `json:"corruption2,omitempty"`
	Params2     string  `json:"params2,omitempty"`
	DV2         float64 `json:"dv2,omitempty"`
	// Pair is the corruption pair a distinguishability stimulus tests,
	// "A|B" in config order (for a "same" stimulus both images have A or
	// both have B); empty otherwise.
	Pair string `json:"pair,omitempty"`
}

// Batch is a set of main stimuli shown together to Design.ViewsPerBatch
// different participants. No two stimuli of a batch share a SourceID.
type Batch struct {
	ID      int      `json:"id"`
	Stimuli []string `json:"stimuli"` // Stimulus IDs
}

// Category is one answer option of a recognition task.
type Category struct {
	Name  string `json:"name"`            // the value recorded as response and ground truth
	Label string `json:"label,omitempty"` // shown on the button (default Name)
	Key   string `json:"key,omitempty"`   // keyboard shortcut, one character
	// Image is a button image file relative to Design.Root (optional).
	Image string `json:"image,omitempty"`
}

// Timing is the trial timeline. Durations the browser realises by counting
// display frames (requestAnimationFrame); the stimulus is on screen for
// round(Stimulus / frame) frames and a trial is flagged when the measured
// duration misses Stimulus by more than ToleranceFrames frames.
type Timing struct {
	Fixation        time.Duration `json:"fixation"`
	Stimulus        time.Duration `json:"stimulus"`
	Mask            time.Duration `json:"mask"`
	Response        time.Duration `json:"response"` // response window; 0 = unlimited
	InterTrial      time.Duration `json:"inter_trial"`
	ToleranceFrames float64       `json:"tolerance_frames"`
}

// Completion says where a participant goes at the end.
type Completion struct {
	Code        string `json:"code,omitempty"`         // completion code shown (and sent to Prolific)
	RedirectURL string `json:"redirect_url,omitempty"` // e.g. https://app.prolific.com/submissions/complete?cc=CODE
	// ScreenOutCode and ScreenOutURL are for participants who failed
	// qualification.
	ScreenOutCode string `json:"screen_out_code,omitempty"`
	ScreenOutURL  string `json:"screen_out_url,omitempty"`
}

// Design is everything that determines what participants see. It is built
// from a config file and a vcr generate test set (Build) and recorded in
// the store; a store holding a design with another Hash refuses to serve a
// different one.
type Design struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // KindRecognition or KindDistinguish
	// Hash is the SHA-256 (hex) of the canonical JSON of the design with
	// Hash empty.
	Hash string `json:"hash"`
	Seed uint64 `json:"seed"`
	// Root is the folder image paths are relative to (not part of Hash).
	Root string `json:"-"`

	Categories []Category `json:"categories"`
	Timing     Timing     `json:"timing"`

	Stimuli []Stimulus `json:"stimuli"`
	Batches []Batch    `json:"batches"`
	// ViewsPerBatch is how many different participants complete each batch.
	ViewsPerBatch int `json:"views_per_batch"`

	Practice []string `json:"practice"` // Stimulus IDs, shown in order
	// Qualification is the pool of qualification stimuli (IDs); each
	// participant gets QualificationTrials of them, drawn by Plan.
	Qualification []string `json:"qualification"`
	// Sanity is the pool of sanity stimuli (IDs); each participant gets
	// SanityTrials of them at random positions among the main trials.
	Sanity []string `json:"sanity"`
	// QualificationTrials and SanityTrials are the numbers of
	// qualification and sanity trials per participant; 0 means the whole
	// pool (as designs made before the pools were).
	QualificationTrials int `json:"qualification_trials,omitempty"`
	SanityTrials        int `json:"sanity_trials,omitempty"`
	// QualificationMinCorrect is how many qualification trials must be
	// answered correctly.
	QualificationMinCorrect int `json:"qualification_min_correct"`
	// SanityMaxFailures is the most sanity trials a participant may fail
	// without being excluded.
	SanityMaxFailures int `json:"sanity_max_failures"`
	// ExcludeTimingMisses excludes trials whose stimulus timing missed its
	// target from the export's analysis rows (they are still exported,
	// marked excluded).
	ExcludeTimingMisses bool `json:"exclude_timing_misses"`
	// Abandon frees the batch of a participant silent for this long.
	Abandon time.Duration `json:"abandon"`
	// Masks is the number of distinct noise masks; each trial draws one.
	Masks int `json:"masks"`
	// MaskSeed seeds the noise masks' pixels.
	MaskSeed uint64 `json:"mask_seed"`

	Completion Completion `json:"completion"`

	index map[string]int // Stimulus lookup, built on first use
}

// Status of a participant.
type Status string

// Participant statuses. Active and completed-not-excluded participants hold
// their batch; the others free it for someone else.
const (
	StatusActive      Status = "active"
	StatusCompleted   Status = "completed"
	StatusScreenedOut Status = "screened_out" // failed qualification
	StatusExcluded    Status = "excluded"     // completed, but failed the sanity checks
	StatusAbandoned   Status = "abandoned"    // silent for longer than Design.Abandon
)

// Participant is one person taking part.
type Participant struct {
	ID int64 `json:"id"`
	// Seq numbers participants 0, 1, 2, … in the order they joined; with
	// Design.Seed it seeds the participant's trial order.
	Seq int64 `json:"seq"`
	// ExternalID is the platform's id (Prolific PROLIFIC_PID, MTurk
	// workerId) or one the server made up. Unique.
	ExternalID string    `json:"external_id"`
	Platform   string    `json:"platform"` // "prolific", "mturk" or "direct"
	StudyID    string    `json:"study_id,omitempty"`
	SessionID  string    `json:"session_id,omitempty"` // platform session/assignment id
	Batch      int       `json:"batch"`                // −1 when none (no main trials)
	Status     Status    `json:"status"`
	Reason     string    `json:"reason,omitempty"` // why screened out or excluded
	UserAgent  string    `json:"user_agent,omitempty"`
	Created    time.Time `json:"created"`
	LastSeen   time.Time `json:"last_seen"`
}

// Response is a participant's answer to one trial and how it was shown.
type Response struct {
	Response string  `json:"response"`
	RTms     float64 `json:"rt_ms"` // from stimulus onset
	// ShownMS is the measured time the stimulus was on screen (between the
	// frame that showed it and the frame that replaced it by the mask).
	ShownMS   float64 `json:"shown_ms"`
	MaskMS    float64 `json:"mask_ms"`
	RefreshHz float64 `json:"refresh_hz"`
	Frames    int     `json:"frames"` // display frames the stimulus was on
	// TimingOK is false when ShownMS missed Timing.Stimulus by more than
	// Timing.ToleranceFrames frames (decided by the server).
	TimingOK bool `json:"timing_ok"`
	// Implausible says why the server did not believe the client's
	// timing claims (CheckTiming): the stimulus or mask never fetched,
	// claims that contradict each other or the server's clock. Empty when
	// plausible. An implausible trial has TimingOK false and is always
	// excluded from analysis.
	Implausible string    `json:"implausible,omitempty"`
	Input       string    `json:"input"` // "key" or "mouse"
	At          time.Time `json:"at"`    // when the answer reached the server
}

// Trial is one planned trial of a participant and, once answered, the
// answer.
type Trial struct {
	Participant int64  `json:"participant"`
	Index       int    `json:"index"` // 0, 1, … in presentation order
	Role        Role   `json:"role"`
	StimulusID  string `json:"stimulus_id"`
	// Token is the random, unguessable name under which the server serves
	// this trial's image(s); it says nothing about the stimulus.
	Token string `json:"-"`
	// Mask selects the noise mask (an index into the server's masks).
	Mask int `json:"mask"`
	// StimulusServed and MaskServed are when the server last served the
	// trial's (first) image and its mask (Store.Served); zero if never.
	StimulusServed time.Time `json:"stimulus_served,omitzero"`
	MaskServed     time.Time `json:"mask_served,omitzero"`
	Answer         *Response `json:"answer,omitempty"` // nil until answered
}

// ServedImage is one image the server sent (Store.Served).
type ServedImage struct {
	Token string    // the trial's token
	Mask  bool      // the mask; false: the (first) stimulus image
	At    time.Time // when it was served
}

// JoinRequest asks for a participant.
type JoinRequest struct {
	ExternalID string
	Platform   string
	StudyID    string
	SessionID  string
	UserAgent  string
	// SessionHash is the SHA-256 of the session cookie's secret value; the
	// store keeps only the hash. Joining again with a known ExternalID
	// replaces it (the participant resumes from another browser).
	SessionHash []byte
	// Addr is a pseudonym of the client address that joins (e.g. a keyed
	// hash); "" for none. With MaxPerAddr > 0, a new participant is
	// refused with ErrAddrLimit when MaxPerAddr places (active or
	// completed-not-excluded participants) are held by participants that
	// joined from Addr.
	Addr       string
	MaxPerAddr int
	Now        time.Time
}

// BatchProgress is how far one batch is.
type BatchProgress struct {
	ID        int `json:"id"`
	Active    int `json:"active"`
	Completed int `json:"completed"` // completed and not excluded
}

// ConditionProgress counts answered main trials of one corruption
// ("" = clean originals).
type ConditionProgress struct {
	Corruption string `json:"corruption"`
	Answered   int    `json:"answered"`
	Planned    int    `json:"planned"` // trials in the plans of active or completed participants
}

// Progress is the live state of an experiment, for the admin page.
type Progress struct {
	Participants map[Status]int      `json:"participants"`
	Batches      []BatchProgress     `json:"batches"`
	Conditions   []ConditionProgress `json:"conditions"`
	// TrialsAnswered and TimingMisses count answered trials of every role
	// (practice, qualification, main, sanity) of every participant.
	TrialsAnswered int `json:"trials_answered"`
	TimingMisses   int `json:"timing_misses"`
	// Exclusions counts participants by Reason (screened out or excluded).
	Exclusions map[string]int `json:"exclusions"`
}

// Store errors.
var (
	// ErrNotFound: no such participant, session or trial.
	ErrNotFound = errors.New("not found")
	// ErrFull: every batch has its ViewsPerBatch participants.
	ErrFull = errors.New("the experiment is full")
	// ErrAnswered: the trial was answered already (a second submission).
	ErrAnswered = errors.New("trial already answered")
	// ErrOutOfOrder: the trial is not the participant's next unanswered one.
	ErrOutOfOrder = errors.New("trial is not the next one")
	// ErrDesignMismatch: the store holds another design.
	ErrDesignMismatch = errors.New("the database holds a different experiment design")
	// ErrClosed: the participant is no longer active.
	ErrClosed = errors.New("participant is not active")
	// ErrAddrLimit: the client address holds JoinRequest.MaxPerAddr places
	// already.
	ErrAddrLimit = errors.New("this address holds its share of places already")
)

// Store keeps the design, participants, plans and responses. Every method
// is safe for concurrent use by many goroutines and, for PostgreSQL, by
// several server processes. A method that returns nil has made its change
// durable (committed and synced).
type Store interface {
	// Init creates or migrates the schema and records d. If the store
	// already holds a design with another Hash it returns an error wrapping
	// ErrDesignMismatch and changes nothing. Init must be called before
	// anything else; the store keeps d for Join.
	Init(ctx context.Context, d *Design) error

	// Join returns the participant with req.ExternalID, creating it if
	// needed. A new participant gets, in one transaction, the next Seq,
	// the batch with the fewest holders (active or completed-not-excluded
	// participants; ties to the lowest ID) among those with fewer than
	// ViewsPerBatch holders, and its plan d.Plan(batch, seq) as trial rows
	// with fresh random tokens. It returns ErrFull when no batch has room
	// (a design without batches never fills) and ErrAddrLimit when req.Addr
	// holds req.MaxPerAddr places already. For a known participant it
	// replaces the session hash and returns created false; it does not
	// change LastSeen: rejoining is no progress and must not hold a place.
	Join(ctx context.Context, req JoinRequest) (p *Participant, created bool, err error)

	// BySession returns the participant whose session hash is h, or
	// ErrNotFound.
	BySession(ctx context.Context, h []byte) (*Participant, error)

	// Trials returns the participant's plan in Index order, answers
	// included.
	Trials(ctx context.Context, participant int64) ([]Trial, error)

	// TrialByToken returns the trial with the token, or ErrNotFound.
	TrialByToken(ctx context.Context, token string) (*Trial, error)

	// Served records, in one transaction and in order, that trials had
	// their first image or their mask served (Trial.StimulusServed,
	// Trial.MaskServed; a later time replaces an earlier one). Unknown
	// tokens are skipped. It does not change LastSeen.
	Served(ctx context.Context, images []ServedImage) error

	// Respond records r as the answer to trial index of the participant
	// and updates LastSeen. It returns ErrAnswered if that trial has an
	// answer already (the stored one is kept), ErrOutOfOrder if an earlier
	// trial is unanswered, ErrClosed if the participant is not active and
	// ErrNotFound for an unknown participant or index.
	Respond(ctx context.Context, participant int64, index int, r Response) error

	// SetStatus sets a participant's status and reason.
	SetStatus(ctx context.Context, participant int64, st Status, reason string, now time.Time) error

	// Abandon marks active participants last seen before the given time as
	// StatusAbandoned (freeing their batches) and returns how many.
	Abandon(ctx context.Context, before time.Time) (int, error)

	// Progress returns the live counts.
	Progress(ctx context.Context) (*Progress, error)

	// Participants calls fn for every participant in ID order.
	Participants(ctx context.Context, fn func(*Participant) error) error

	// Answered calls fn for every answered trial, ordered by participant ID
	// and Index.
	Answered(ctx context.Context, fn func(*Trial) error) error

	// StoredDesign returns the design Init recorded when the store was
	// first initialised, frozen (Design.Freeze); it needs no Init, so that
	// tools can read a store without the experiment's config. It returns an
	// error wrapping ErrNotFound when the store holds no design, and an
	// error when the recorded design does not match its hash.
	StoredDesign(ctx context.Context) (*Design, error)

	Close() error
}

// ServerConfig is the server section of an experiment config: how the web
// app is served. It is not part of the Design (changing it never changes
// what participants see).
type ServerConfig struct {
	// Addr is the listen address (default 127.0.0.1:8080; the command's
	// --addr overrides it).
	Addr string `json:"addr,omitempty"`
	// AdminToken guards the admin pages; the environment variable
	// VCR_ADMIN_TOKEN overrides it. Required: at least 16 characters.
	AdminToken string `json:"admin_token,omitempty"`
	// Title is shown on every participant page.
	Title string `json:"title,omitempty"`
	// ConsentFile and InstructionsFile are HTML fragments (paths relative
	// to the config file) shown on the consent and instructions pages;
	// defaults describe the task in plain words.
	ConsentFile      string `json:"consent_file,omitempty"`
	InstructionsFile string `json:"instructions_file,omitempty"`
	// RefuseMobile refuses phones and tablets; MinWidth and MinHeight (CSS
	// pixels) refuse smaller windows.
	RefuseMobile bool `json:"refuse_mobile,omitempty"`
	MinWidth     int  `json:"min_width,omitempty"`
	MinHeight    int  `json:"min_height,omitempty"`
	// RatePerIP (requests per second) and BurstPerIP limit each client
	// address; RatePerSession and BurstPerSession each participant.
	RatePerIP       float64 `json:"rate_per_ip,omitempty"`
	BurstPerIP      int     `json:"burst_per_ip,omitempty"`
	RatePerSession  float64 `json:"rate_per_session,omitempty"`
	BurstPerSession int     `json:"burst_per_session,omitempty"`
	// SecureCookies marks cookies Secure (serve behind HTTPS).
	SecureCookies bool `json:"secure_cookies,omitempty"`
	// TrustProxy takes the client address from X-Forwarded-For (behind a
	// reverse proxy only).
	TrustProxy bool `json:"trust_proxy,omitempty"`

	// AllowAnonymous lets participants without the recruitment platform's
	// id join (the server makes one up) when completion.platform is set;
	// they never receive the platform's completion code. Without a
	// platform everyone joins with ?pid= or a made-up id anyway.
	AllowAnonymous bool `json:"allow_anonymous,omitempty"`
	// MaxPlacesPerIP is the most places (active or completed-not-excluded
	// participants) that participants joining from one client address may
	// hold (default DefaultMaxPlacesPerIP; −1: no limit, e.g. a lab behind
	// one address).
	MaxPlacesPerIP int `json:"max_places_per_ip,omitempty"`
	// JoinsPerMinute limits POST /join over all clients and
	// JoinsPerMinutePerIP per client address (defaults
	// DefaultJoinsPerMinute, DefaultJoinsPerMinutePerIP); the burst is the
	// same number.
	JoinsPerMinute      float64 `json:"joins_per_minute,omitempty"`
	JoinsPerMinutePerIP float64 `json:"joins_per_minute_per_ip,omitempty"`

	// Platform is completion.platform ("prolific", "mturk" or ""), copied
	// here by Config.Validate: with a platform, POST /join requires and
	// validates its participant id unless AllowAnonymous.
	Platform string `json:"-"`
}

// Defaults of the join limits (ServerConfig).
const (
	// DefaultMaxPlacesPerIP: two places per address allows two people of
	// one household, and keeps one address from filling a study.
	DefaultMaxPlacesPerIP = 2
	// DefaultJoinsPerMinute admits a crowd platform's launch burst (a few
	// hundred people in the first minutes) while no script can take a
	// study's places in well under a minute.
	DefaultJoinsPerMinute = 120
	// DefaultJoinsPerMinutePerIP allows reopening the link a few times.
	DefaultJoinsPerMinutePerIP = 5
)
