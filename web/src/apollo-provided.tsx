import type { ApolloClient } from '@apollo/client';
import { ApolloProvider } from '@apollo/client/react';
import type { ComponentType } from 'react';

/** A page drawn inside Apollo's provider: it loads with the page's code, so the store's first load does not carry it. */
export function withApollo<Props extends object>(Page: ComponentType<Props>, client: ApolloClient): ComponentType<Props> {
  return function ApolloPage(props: Props) {
    return (
      <ApolloProvider client={client}>
        <Page {...props} />
      </ApolloProvider>
    );
  };
}
