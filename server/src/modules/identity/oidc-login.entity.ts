import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One OIDC sign-in in flight: what the callback must check (state, nonce, PKCE verifier). */
@Entity('oidc_logins')
export class OidcLogin {
  @PrimaryColumn({ type: 'text' })
  state: string;

  @Column({ type: 'text', name: 'code_verifier' })
  codeVerifier: string;

  @Column({ type: 'text' })
  nonce: string;

  @Column({ type: 'text', name: 'return_to' })
  returnTo: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
