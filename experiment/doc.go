// Package experiment runs human recognition experiments: the design (which
// stimuli, in which batches, shown to how many participants, with which
// qualification, practice and sanity trials), the per-participant trial
// plan, the Store interface that keeps participants and responses durably
// (SQLite by default, PostgreSQL for several server instances), and the
// export of trials in the human-data format that vcr analyze and vcr
// requirements read (docs/human-data.md).
//
// The web app that serves the experiment lives in experiment/web; the
// Store implementations in experiment/sqlite and experiment/postgres,
// which both pass the conformance suite in experiment/storetest.
//
// The protocol follows the psychophysics of Geirhos et al. (2018,
// "Generalisation in humans and deep neural networks") as used by the VCR
// studies (Hu et al., ICSE 2022; Hu et al., 2023): a fixation point, the
// stimulus for 200 ms, a noise mask, then a forced choice among the task's
// categories.
package experiment
