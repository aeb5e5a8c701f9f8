import { describe, expect, test } from 'vitest'
import { firstParagraph } from '../../src/history/message.js'
import { issueUrl, pullRequestUrl, remoteWeb } from '../../src/history/remote.js'

describe('remoteWeb: the web address of a remote URL', () => {
  test.each([
    ['git@github.com:acme/widgets.git', 'https://github.com/acme/widgets', 'github'],
    ['ssh://git@github.com/acme/widgets.git', 'https://github.com/acme/widgets', 'github'],
    ['ssh://git@gitlab.example.com:2222/group/sub/widgets.git', 'https://gitlab.example.com/group/sub/widgets', 'gitlab'],
    ['https://user:tok3n@github.com/acme/widgets.git', 'https://github.com/acme/widgets', 'github'],
    ['https://oauth2:tok3n@gitlab.com/group/widgets', 'https://gitlab.com/group/widgets', 'gitlab'],
    ['http://gitea.local:3000/acme/widgets.git/', 'http://gitea.local:3000/acme/widgets', 'gitea'],
    ['git@codeberg.org:acme/widgets.git', 'https://codeberg.org/acme/widgets', 'gitea'],
    ['https://bitbucket.org/acme/widgets.git', 'https://bitbucket.org/acme/widgets', 'bitbucket'],
    ['git://github.com/acme/widgets', 'https://github.com/acme/widgets', 'github'],
  ])('%s', (url, web, forge) => {
    expect(remoteWeb(url)).toEqual({ web, forge })
    expect(JSON.stringify(remoteWeb(url))).not.toContain('tok3n')
  })
  test.each([['/srv/git/widgets.git'], ['../widgets'], ['file:///srv/widgets.git'], ['git@example.com:acme/widgets.git'], ['https://github.com/'], ['C:/repos/widgets']])('%s: no link', (url) => {
    expect(remoteWeb(url)).toBeNull()
  })
  test('links per forge', () => {
    const at = (url: string) => [pullRequestUrl(remoteWeb(url), 5), issueUrl(remoteWeb(url), 6)]
    expect(at('git@github.com:a/b.git')).toEqual(['https://github.com/a/b/pull/5', 'https://github.com/a/b/issues/6'])
    expect(at('git@gitlab.com:a/b.git')).toEqual(['https://gitlab.com/a/b/-/merge_requests/5', 'https://gitlab.com/a/b/-/issues/6'])
    expect(at('git@bitbucket.org:a/b.git')).toEqual(['https://bitbucket.org/a/b/pull-requests/5', 'https://bitbucket.org/a/b/issues/6'])
    expect(at('git@codeberg.org:a/b.git')).toEqual(['https://codeberg.org/a/b/pulls/5', 'https://codeberg.org/a/b/issues/6'])
    expect(pullRequestUrl(null, 5)).toBeNull()
  })
})

describe('firstParagraph: the why of a commit body', () => {
  test('the first explaining paragraph, joined and cut', () => {
    expect(firstParagraph('A child is queued\nbefore its parent.\n\nMore.')).toBe('A child is queued before its parent.')
    expect(firstParagraph('x'.repeat(500))!.length).toBeLessThanOrEqual(240)
    expect(firstParagraph('')).toBeNull()
  })
  test('trailers and squash boilerplate are skipped', () => {
    expect(firstParagraph('Signed-off-by: A <a@x>\nCo-authored-by: B <b@x>')).toBeNull()
    expect(firstParagraph('Change-Id: I123\n\nFixes #12')).toBeNull()
    expect(firstParagraph('* feat: one\n\n* fix: two\n  continued\n\n---------\n\nCo-authored-by: B <b@x>')).toBeNull()
    expect(firstParagraph('* feat: one\n\nThe real reason.\n\nSigned-off-by: A <a@x>')).toBe('The real reason.')
    expect(firstParagraph('This reverts commit abc.\n\nIt broke the build.')).toBe('It broke the build.')
    expect(firstParagraph('Note: keep this.')).toBe('Note: keep this.')
  })
})
