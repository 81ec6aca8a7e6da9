// Package token issues and verifies confirm tokens: short-lived HS256 JWTs that bind
// an apply to the plan hash, project and Studio session a plan was made for
// (ARCHITECTURE §3, §5 step 1). A Store holds a project's key and the ledger of
// spent token ids on disk. It is the only importer of golang-jwt.
package token
