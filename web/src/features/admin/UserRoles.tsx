import { useMutation } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { useT } from '../../i18n/i18n';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem, useProblemText } from '../../ui/graphql-errors';
import { GrantRoleMutation, RevokeRoleMutation } from './admin-operations';
import { useFindUser, type AdminUser } from './find-user';

type GrantableRole = 'REVIEWER' | 'ADMIN';
const GRANTABLE_ROLES: readonly GrantableRole[] = ['REVIEWER', 'ADMIN'];
const CONFIGURED_BY: Record<GrantableRole, string> = { REVIEWER: 'PLATFORM_REVIEWER_EMAILS', ADMIN: 'PLATFORM_ADMIN_EMAILS' };

/** Why a held role has no Revoke button, or null when it can be revoked here (the server still decides). */
function unrevocableBecause(user: AdminUser, role: GrantableRole): { key: 'admin.roleImplied' } | { key: 'admin.roleConfigured'; variable: string } | null {
  // Admins also review, so REVIEWER stays while ADMIN does, whatever gave it.
  if (role === 'REVIEWER' && user.roles.includes('ADMIN')) return { key: 'admin.roleImplied' };
  if (user.configuredRoles.includes(role)) return { key: 'admin.roleConfigured', variable: CONFIGURED_BY[role] };
  return null;
}

/** Find a user by e-mail and grant or revoke REVIEWER and ADMIN. */
export function UserRoles() {
  const t = useT();
  const problemText = useProblemText();
  const findUser = useFindUser();
  const [grant] = useMutation(GrantRoleMutation);
  const [revoke] = useMutation(RevokeRoleMutation);
  const [email, setEmail] = useState('');
  const [emailProblem, setEmailProblem] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [finding, setFinding] = useState(false);
  const [changing, setChanging] = useState(false);
  const [user, setUser] = useState<AdminUser | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function find(event: FormEvent) {
    event.preventDefault();
    setUser(null);
    setDone(null);
    setProblem(null);
    if (email.trim() === '') return setEmailProblem(t('admin.emailRequired'));
    setEmailProblem(null);
    setFinding(true);
    try {
      const found = await findUser(email);
      if (found) setUser(found);
      else setEmailProblem(t('admin.noUser', { email: email.trim() }));
    } catch (error) {
      setProblem(problemText(serverProblem(error)));
    } finally {
      setFinding(false);
    }
  }

  async function change(target: AdminUser, role: GrantableRole, action: 'grant' | 'revoke') {
    setDone(null);
    setProblem(null);
    setChanging(true);
    try {
      const variables = { userId: target.id, role };
      const updated = action === 'grant' ? (await grant({ variables })).data?.grantRole : (await revoke({ variables })).data?.revokeRole;
      if (!updated) return;
      setUser(updated);
      const words = { email: updated.email, role: t(`admin.role.${role}`) };
      setDone(action === 'grant' ? t('admin.granted', words) : t('admin.revoked', words));
    } catch (error) {
      setProblem(problemText(serverProblem(error)));
    } finally {
      setChanging(false);
    }
  }

  return (
    <section className="card" aria-labelledby="admin-users-heading">
      <h2 id="admin-users-heading">{t('admin.usersHeading')}</h2>
      {/* find() shows its own failure in the form. */}
      <form onSubmit={(event) => void find(event)} noValidate>
        <div className="field">
          <label htmlFor="roles-email">{t('admin.email')}</label>
          <input
            id="roles-email"
            className="input-email"
            type="email"
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              setEmailProblem(null);
            }}
            aria-invalid={emailProblem ? true : undefined}
            aria-describedby={emailProblem ? 'roles-email-problem' : undefined}
            autoComplete="off"
          />
          {emailProblem && (
            <p id="roles-email-problem" className="field-problem">
              {emailProblem}
            </p>
          )}
        </div>
        <div className="actions">
          <button type="submit" disabled={finding}>
            {finding ? t('admin.finding') : t('admin.find')}
          </button>
        </div>
      </form>
      {user && (
        <>
          <p>{t('admin.userFound', { email: user.email, id: user.id, points: user.points })}</p>
          <table>
            <caption>{t('admin.rolesOf', { email: user.email })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('admin.role')}</th>
                <th scope="col">{t('admin.status')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('admin.usersHeading')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {GRANTABLE_ROLES.map((role) => {
                const held = user.roles.includes(role);
                const because = held ? unrevocableBecause(user, role) : null;
                const name = t(`admin.role.${role}`);
                return (
                  <tr key={role}>
                    <th scope="row">{name}</th>
                    <td>{held ? t('admin.roleHeld') : t('admin.roleNotHeld')}</td>
                    <td>
                      {because ? (
                        <span className="hint">{because.key === 'admin.roleConfigured' ? t(because.key, { variable: because.variable }) : t(because.key)}</span>
                      ) : (
                        // change() shows its own failure above the list.
                        <button type="button" className={held ? 'secondary' : undefined} disabled={changing} onClick={() => void change(user, role, held ? 'revoke' : 'grant')}>
                          {t(held ? 'admin.revoke' : 'admin.grant', { role: name })}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
      {done && (
        <p role="status" className="admin-result">
          {done}
        </p>
      )}
      {problem && <ErrorMessage message={problem} />}
    </section>
  );
}
